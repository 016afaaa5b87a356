//! What one run of the chapter measures and keeps: the results' data
//! model, the run itself (`measure`), the counted cases, and the chapter's
//! contract with the harness. This half decides the numbers, so it is in
//! the results' fingerprint; the page (the binary's `page` module) only reads them, and is not.
mod counts;
mod measure;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use harness_measure::{Experiment, Lab};

use crate::{GridPoint, ScenarioResult};

pub use counts::{case_of, CreationCount, COUNTED};

pub struct AllocProbe;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AllocData {
    /// Bits in a pointer on the measuring machine (block sizes depend on it).
    pub pointer_width: u32,
    pub grid: Vec<GridPoint>,
    pub sweep: Vec<GridPoint>,
    pub scenarios: Vec<ScenarioResult>,
    /// Instructions to create and drop each channel, counted by callgrind.
    pub creation_counts: Vec<CreationCount>,
}

impl Experiment for AllocProbe {
    type Data = AllocData;
    const NAME: &'static str = "alloc-probe";
    const MEASURED_CRATES: &'static [&'static str] = &[
        "tokio",
        "futures-channel",
        "crossbeam-channel",
        "kanal",
        "flume",
        "dhat",
    ];
    const COUNTED: &'static [harness_measure::Counted] = COUNTED;

    fn measure(lab: &Lab) -> Result<AllocData> {
        measure::measure(lab)
    }
}
