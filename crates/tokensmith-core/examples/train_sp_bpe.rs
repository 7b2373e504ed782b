//! Trains sentencepiece's BPE model on a text file as `--input=FILE` reads it, and prints
//! each stage with its wall and CPU time.
//!
//! `cargo run --release --example train_sp_bpe -- FILE VOCAB_SIZE [THREADS] [OUT.model]`

use std::io::Read;
use std::ops::ControlFlow;
use std::time::Instant;

use tokensmith_core::formats::sentencepiece_model::serialize;
use tokensmith_core::trainers::sp_bpe::{train, Event};
use tokensmith_core::trainers::unigram::{SentenceCounter, UnigramConfig};

/// Bytes read at a time (cut after the last `\n`).
const BLOCK: usize = 1 << 20;
/// Blocks handed to the counter at a time.
const BLOCKS_PER_BATCH: usize = 4;

/// CPU seconds of this process so far (NaN where `getrusage` does not exist).
#[cfg(not(unix))]
fn cpu_seconds() -> f64 {
    f64::NAN
}

/// CPU seconds of this process so far.
#[cfg(unix)]
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(path), Some(vocab)) = (args.get(1), args.get(2)) else {
        return Err("usage: train_sp_bpe FILE VOCAB_SIZE [THREADS] [OUT.model]".into());
    };
    let config = UnigramConfig {
        num_threads: args.get(3).map_or(Ok(0), |t| t.parse())?,
        ..UnigramConfig::new(vocab.parse()?)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.num_threads)
        .build()?;
    let start = Instant::now();
    let stage = |what: &str| {
        eprintln!(
            "{:7.3}s wall {:7.3}s cpu  {what}",
            start.elapsed().as_secs_f64(),
            cpu_seconds()
        )
    };
    let mut counter = SentenceCounter::new(&config)?;
    let mut file = std::fs::File::open(path)?;
    let (mut carry, mut batch): (Vec<u8>, Vec<Vec<u8>>) = (Vec::new(), Vec::new());
    loop {
        let mut block = std::mem::take(&mut carry);
        let had = block.len();
        block.resize(had + BLOCK, 0);
        let n = file.read(&mut block[had..])?;
        block.truncate(had + n);
        if n > 0 {
            let cut = block.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
            carry = block.split_off(cut);
        }
        if !block.is_empty() {
            batch.push(block);
        }
        if batch.len() == BLOCKS_PER_BATCH || (n == 0 && !batch.is_empty()) {
            pool.install(|| counter.add_line_blocks(&batch));
            batch.clear();
        }
        if n == 0 {
            break;
        }
    }
    let words = pool.install(|| counter.finish());
    stage(&format!("counted {} words", words.words.len()));
    let proto = train(&config, words, &mut |event| {
        if !matches!(event, Event::Merged { pieces } if pieces % 4000 != 0) {
            stage(&format!("{event:?}"));
        }
        ControlFlow::Continue(())
    })?
    .ok_or("stopped")?;
    stage(&format!("{} pieces", proto.pieces.len()));
    if let Some(out) = args.get(4) {
        std::fs::write(out, serialize(&proto))?;
    }
    Ok(())
}
