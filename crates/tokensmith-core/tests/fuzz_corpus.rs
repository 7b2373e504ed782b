//! The fuzz targets' committed inputs, replayed through the same entry points libFuzzer
//! calls (`fuzz/src/`), on the stable toolchain: the seeds, every crash found so far
//! (`fuzz/regressions/<target>/`), and a short deterministic mutation pass over the seeds.
//!
//! `make fuzz` runs the real, coverage-guided fuzzers for as long as asked.

#[path = "../../../fuzz/src/lib.rs"]
mod fuzz;

use std::path::{Path, PathBuf};

mod common;
use common::Rng;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted by name (none when the folder is absent).
fn inputs(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(fuzz_dir().join(kind).join(target)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).unwrap();
            (p, data)
        })
        .collect()
}

#[test]
fn every_target_has_seeds() {
    for (name, _) in fuzz::TARGETS {
        assert!(!inputs("seeds", name).is_empty(), "no seeds for {name}");
    }
}

#[test]
fn seeds_and_regressions_replay_without_a_panic() {
    for (name, run) in fuzz::TARGETS {
        for kind in ["seeds", "regressions"] {
            for (path, data) in inputs(kind, name) {
                let outcome = std::panic::catch_unwind(|| run(&data));
                assert!(outcome.is_ok(), "{name} panicked on {}", path.display());
            }
        }
    }
}

/// One of a few libFuzzer-like mutations: flip a byte, insert or erase a run, duplicate a
/// slice, or splice in bytes that parsers treat specially.
fn mutate(data: &mut Vec<u8>, rng: &mut Rng) {
    const INTERESTING: [&[u8]; 8] = [
        b"\0",
        b"\xff\xff\xff\xff\x0f",
        b"\"",
        b"}",
        b"\n",
        b"=",
        b"\xe2\x96\x81",
        b"9999999999",
    ];
    let at = rng.below(data.len() + 1);
    match rng.below(5) {
        0 if !data.is_empty() => {
            let i = at.min(data.len() - 1);
            data[i] ^= 1 << rng.below(8);
        }
        1 => {
            let end = (at + rng.below(16)).min(data.len());
            data.drain(at..end);
        }
        2 if !data.is_empty() => {
            let start = rng.below(data.len());
            let end = (start + rng.below(64)).min(data.len());
            let copy = data[start..end].to_vec();
            data.splice(at..at, copy);
        }
        3 => {
            let bytes = INTERESTING[rng.below(INTERESTING.len())];
            data.splice(at..at, bytes.iter().copied());
        }
        _ => data.truncate(at),
    }
}

#[test]
fn mutated_seeds_run_without_a_panic() {
    // About 15 s in all on one core; each target gets the same number of runs.
    const RUNS_PER_TARGET: usize = 5000;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for (name, run) in fuzz::TARGETS {
        let seeds = inputs("seeds", name);
        for _ in 0..RUNS_PER_TARGET {
            let (_, seed) = &seeds[rng.below(seeds.len())];
            let mut data = seed.clone();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut data, &mut rng);
            }
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{name} panicked on mutated input {data:?}");
        }
    }
}
