//! The chapters of the book, in reading order.

pub struct ChapterInfo {
    /// Crate, binary, results folder and page name (`src/<name>.md`).
    pub name: &'static str,
    pub title: &'static str,
    /// Whether the chapter crate measures yet (a stub page says what it will).
    pub written: bool,
}

pub const CHAPTERS: &[ChapterInfo] = &[
    ChapterInfo {
        name: "fan-in",
        title: "Channel fan-in",
        written: true,
    },
    ChapterInfo {
        name: "mutex-swap",
        title: "Mutex swap",
        written: true,
    },
    ChapterInfo {
        name: "mutex-cost",
        title: "tokio vs std mutex",
        written: true,
    },
    ChapterInfo {
        name: "alloc-probe",
        title: "Allocation probe",
        written: true,
    },
    ChapterInfo {
        name: "channel-latency",
        title: "Cross-arch latency",
        written: true,
    },
];

pub fn find(name: &str) -> anyhow::Result<&'static ChapterInfo> {
    CHAPTERS.iter().find(|c| c.name == name).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown chapter {name:?}: expected one of {}",
            CHAPTERS
                .iter()
                .map(|c| c.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

pub fn written() -> impl Iterator<Item = &'static ChapterInfo> {
    CHAPTERS.iter().filter(|c| c.written)
}
