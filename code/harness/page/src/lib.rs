//! A chapter's page: the page half of the chapter contract ([`Chapter`],
//! [`Exhibit`], [`Book`]), rendering (markdown, SVG, CSV, flame graphs),
//! verdicts and the headline, the claims across releases and the agreement
//! of repeated runs. Nothing here runs while a chapter measures, so nothing
//! here stales a result.
//!
//! - [`chapter`]: the contract's page half and a chapter's results as the
//!   page reads them ([`load`]).
//! - [`render`]: markdown, SVG, CSV and the provenance card.
//! - [`page`]: the contract's page half ([`Page`]), and judging as a stage
//!   ([`Judge`]): a run's named estimates, verdicts and headline, stored in
//!   its results file as its `analysis`.
//! - [`headline`], [`exhibits`]: what `harness compare` and agreement line
//!   up, the built-in exhibits.
//! - [`releases`], [`agreement`]: claims over time and across runs.
pub mod agreement;
pub mod chapter;
pub mod exhibits;
pub mod fixtures;
pub mod headline;
pub mod load;
pub mod page;
pub mod parameters;
pub mod releases;
pub mod render;

pub use chapter::{Book, Exhibit, ExhibitKind, Run};
pub use headline::{Headline, HeadlineEstimate, HeadlineVerdict};
pub use load::load_book;
pub use page::{Judge, Judged, Page};
