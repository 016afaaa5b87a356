//! What a results file must show the work did, checked on load.
use anyhow::{anyhow, ensure, Result};

use super::{bytes_between, point, AllocData};
use alloc_probe::{Channel, GridPoint, GRID_CAPACITIES, GRID_SIZES, SCENARIOS};

pub fn check(data: &AllocData) -> Result<()> {
    ensure!(
        data.pointer_width == 32 || data.pointer_width == 64,
        "pointer width {} is neither 32 nor 64",
        data.pointer_width
    );
    for channel in Channel::ALL {
        for &(size, _) in GRID_SIZES {
            for cap in GRID_CAPACITIES {
                point(data, channel, size, cap)?;
            }
        }
        ensure!(
            data.sweep.iter().filter(|p| p.channel == channel).count() >= 3,
            "the size sweep of {} has fewer than 3 points",
            channel.label()
        );
    }
    for p in &data.grid {
        footprint("grid", p)?;
    }
    for p in &data.sweep {
        footprint("size sweep", p)?;
    }
    for s in SCENARIOS {
        ensure!(
            data.scenarios.iter().any(|r| r.scenario == s.name
                && r.channel == Channel::TokioBounded
                && r.channels > 0),
            "scenario {} has no tokio result",
            s.name
        );
    }
    super::counts::check(&data.creation_counts)
}

/// What `HeapProbe` guarantees of every footprint: `capacity` messages
/// went in and came out, bytes with 32 and 33 queued are taken exactly when
/// the capacity holds 33, and while filling (sends only, nothing received)
/// the live bytes never fall. Draining is left free: a receiver frees or
/// keeps memory as its channel sees fit.
fn footprint(what: &str, p: &GridPoint) -> Result<()> {
    let f = &p.footprint;
    let at = || {
        format!(
            "{what} point {} {} B cap {}",
            p.channel.label(),
            p.msg_size,
            p.capacity
        )
    };
    ensure!(
        f.created > 0 && f.messages == p.capacity as u64,
        "{} is not a complete run",
        at()
    );
    let past_32 = p.capacity >= 33;
    ensure!(
        f.after_32.is_some() == past_32 && f.after_33.is_some() == past_32,
        "{} {} bytes with 32 and 33 messages queued",
        at(),
        if past_32 { "lacks" } else { "records" }
    );
    let filling = [
        Some(("created", f.created)),
        f.after_32.map(|b| ("32 queued", b)),
        f.after_33.map(|b| ("33 queued", b)),
        Some(("full", f.full)),
    ];
    let filling: Vec<(&str, u64)> = filling.into_iter().flatten().collect();
    for pair in filling.windows(2) {
        bytes_between(p, pair[1], pair[0]).map_err(|e| {
            anyhow!("{what}: {e}, but filling a channel only adds messages: its bytes never fall")
        })?;
    }
    Ok(())
}
