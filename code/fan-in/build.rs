//! Reads which of tokio's co-op functions the resolved tokio offers, so the
//! chapter builds against the release its post measured (see the file below).
include!("../build-support/tokio_coop.rs");

fn main() {
    emit_tokio_coop_cfgs();
}
