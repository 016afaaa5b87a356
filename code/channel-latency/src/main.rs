fn main() -> std::process::ExitCode {
    harness::chapter_main::<channel_latency::ChannelLatency, channel_latency::ChannelLatency>()
}
