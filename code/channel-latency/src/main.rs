//! The chapter's binary: its experiment (the library's `ChannelLatency`)
//! and its page (`page::ChannelLatency`, only here) composed into the
//! command line every chapter shares (`measure`, `judge`, `render`, ...).
use std::process::ExitCode;

mod page;

fn main() -> ExitCode {
    harness::chapter_main::<channel_latency::ChannelLatency, page::ChannelLatency>()
}
