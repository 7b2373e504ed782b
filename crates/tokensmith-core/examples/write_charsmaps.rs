//! Writes the precompiled charsmap of each normalization rule into
//! `src/normalizers/charsmaps/`, where the crate reads them from (see
//! `tokensmith_core::normalizers::charsmaps`).
//!
//! `cargo run --release -p tokensmith-core --example write_charsmaps`

use std::path::Path;

use tokensmith_core::normalizers::charsmap_builder::{build_charsmap, Rule};
use tokensmith_core::normalizers::charsmaps::file_name;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    for rule in Rule::ALL {
        let path = crate_dir.join(file_name(rule));
        let blob = build_charsmap(rule)?;
        std::fs::write(&path, &blob)?;
        println!("{}: {} bytes", path.display(), blob.len());
    }
    Ok(())
}
