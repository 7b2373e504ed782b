//! Times what a user waits for before the first ids of a fresh model: loading the `.model`
//! bytes, the first `encode_ids` (which builds whatever is built lazily), a second one on
//! another text, and that text again.
//! `cargo run --release --example load_first -- MODEL [ROUNDS] [TEXT]`; each round loads the
//! model anew and prints the four times, then the best of each. With one round it is also a
//! harness for `valgrind --tool=callgrind` (instructions of one load and first call).

use std::time::Instant;
use tokensmith_core::sentencepiece::SentencePieceProcessor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, rest @ ..] = args.as_slice() else {
        eprintln!("usage: load_first MODEL [ROUNDS] [TEXT]");
        std::process::exit(2);
    };
    let rounds: usize = rest.first().and_then(|r| r.parse().ok()).unwrap_or(5);
    let first = rest.get(1).map_or("Hello world", String::as_str);
    let second = std::env::var("LOAD_SECOND").unwrap_or_else(|_| "Другой текст 日本語".into());
    let second = second.as_str();
    let bytes = std::fs::read(model).unwrap();
    let mut best = [f64::MAX; 4];
    let mut sink = 0usize;
    for _ in 0..rounds {
        let t0 = Instant::now();
        let sp = SentencePieceProcessor::from_bytes(&bytes).unwrap();
        let t1 = Instant::now();
        sink += sp.encode_ids(first).len();
        let t2 = Instant::now();
        sink += sp.encode_ids(second).len();
        let t3 = Instant::now();
        sink += sp.encode_ids(second).len();
        let t4 = Instant::now();
        let times = [t1 - t0, t2 - t1, t3 - t2, t4 - t3].map(|d| d.as_secs_f64() * 1e3);
        for (b, t) in best.iter_mut().zip(times) {
            *b = b.min(t);
        }
        if rounds > 1 {
            println!(
                "load {:.3} ms, first {:.3} ms, second {:.3} ms, second again {:.3} ms",
                times[0], times[1], times[2], times[3]
            );
        }
    }
    println!(
        "best: load {:.3} ms, first {:.3} ms, second {:.3} ms, second again {:.3} ms ({sink} ids)",
        best[0], best[1], best[2], best[3]
    );
}
