//! Passes the interpreter's configuration to the crate as `cfg` flags (`Py_GIL_DISABLED`
//! for a free-threaded build, among others), as PyO3 sets them for itself.

fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
