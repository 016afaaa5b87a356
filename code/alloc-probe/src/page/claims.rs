//! The published claims and the rules that decide them.
use anyhow::Result;

use harness_core::fmt::{bytes, percent_delta, thousands};
use harness_core::{Claim, Outcome, Verdict};

use super::{bytes_between, point, AllocData};
use alloc_probe::{creation_fit, Channel, GRID_CAPACITIES, GRID_SIZES};

const POST: &str =
    "[The hidden cost of mpsc channels](https://blog.howardjohn.info/posts/mpsc-cost/)";

pub const CLAIMS: &[Claim] = &[
    Claim {
        id: "ALLOC-1",
        short: "a tokio channel's bound does not change its bytes at creation",
        statement: "A bounded tokio mpsc channel's capacity has no effect on its heap use at creation.",
        source: POST,
        rule: "Bytes at creation are identical at capacities 1, 16 and 1024 for every message size of the grid.",
    },
    Claim {
        id: "ALLOC-2",
        short: "tokio's channel starts at 32 messages' room plus 544 bytes",
        statement: "At creation it holds 32 × size_of::<T>() + 544 bytes on 64-bit targets.",
        source: POST,
        rule: "A least-squares fit of creation bytes over the message-size sweep gives slope 32 and intercept 544 exactly, with no residual. Decided on 64-bit machines only.",
    },
    Claim {
        id: "ALLOC-3",
        short: "tokio's channel does not grow before its 33rd queued message",
        statement: "It does not grow until more than 32 messages are queued.",
        source: POST,
        rule: "At capacity 1024, bytes with 32 messages queued equal bytes at creation, and bytes with 33 queued are larger, for every message size.",
    },
    Claim {
        id: "ALLOC-4",
        short: "futures-channel allocates per message, not a block up front",
        statement: "futures-channel's mpsc allocates per queued message instead of a block up front.",
        source: POST,
        rule: "At creation futures-channel holds room for at most one message (slope of its creation fit, rounded, ≤ 1), and at capacity 1024 every queued message adds at least size_of::<T>() bytes, for every message size.",
    },
    Claim {
        id: "ALLOC-5",
        short: "a tokio channel of a 24-byte message costs about 1312 bytes",
        statement: "A tokio channel of a 24-byte message costs about 1312 bytes.",
        source: POST,
        rule: "Bytes per idle channel, averaged over 10,000 held at once, within 5 % of 1312.",
    },
    Claim {
        id: "ALLOC-6",
        short: "a tokio channel of a 250-byte request costs about 8 KB",
        statement: "A tokio channel of a ~250-byte request costs about 8 KB (the per-connection cost seen in hyper).",
        source: POST,
        rule: "Bytes per idle channel of a 250-byte message, averaged over 10,000, within 10 % of 8 KiB (8192 B).",
    },
];

/// ALLOC-5 and ALLOC-6: the claim, its scenario, the published bytes per
/// channel and the tolerance around them.
pub(super) const SCENARIO_CLAIMS: [(&str, &str, f64, f64); 2] = [
    ("ALLOC-5", "health", 1312.0, 0.05),
    ("ALLOC-6", "requests", 8192.0, 0.10),
];

fn claim(id: &str) -> &'static Claim {
    CLAIMS
        .iter()
        .find(|c| c.id == id)
        .expect("claim is defined")
}

fn opt(v: Option<u64>) -> String {
    v.map_or("–".into(), thousands)
}

/// Every claim's verdict on one run (`d`, measured on machine `m`).
pub(super) fn verdicts(d: &AllocData, m: &str) -> Result<Vec<Verdict>> {
    let mut out = Vec::new();

    // ALLOC-1: capacity does not change creation bytes.
    let mut worst = (0, 0u64, 0u64);
    let mut holds = true;
    for &(size, _) in GRID_SIZES {
        let mut created = Vec::new();
        for &c in &GRID_CAPACITIES {
            created.push(point(d, Channel::TokioBounded, size, c)?.footprint.created);
        }
        let (lo, hi) = (
            *created.iter().min().unwrap_or(&0),
            *created.iter().max().unwrap_or(&0),
        );
        if lo != hi {
            holds = false;
            worst = (size, lo, hi);
        }
    }
    out.push(Verdict::new(
        claim("ALLOC-1"),
        m,
        Outcome::from_bool(holds),
        if holds {
            "Creation bytes are the same at every capacity for every message size.".to_string()
        } else {
            format!(
                "At {} B messages creation ranges from {} to {}.",
                worst.0,
                bytes(worst.1),
                bytes(worst.2)
            )
        },
    ));

    // ALLOC-2: the published constants.
    let f = creation_fit(&d.sweep, Channel::TokioBounded);
    let evidence = format!(
        "Fitted a = {:.2}, b = {:.1}, largest miss {}.",
        f.slope,
        f.intercept,
        bytes(f.max_residual.round() as u64)
    );
    out.push(if d.pointer_width != 64 {
        Verdict::not_measured(
            claim("ALLOC-2"),
            format!("{m} is {}-bit. {evidence}", d.pointer_width),
        )
    } else {
        let exact = f.slope == 32.0 && f.intercept == 544.0 && f.max_residual == 0.0;
        Verdict::new(claim("ALLOC-2"), m, Outcome::from_bool(exact), evidence)
    });

    // ALLOC-3: growth starts at message 33.
    let mut holds = true;
    let mut seen = Vec::new();
    for &(size, _) in GRID_SIZES {
        let f = point(d, Channel::TokioBounded, size, 1024)?.footprint;
        holds &= f.after_32 == Some(f.created) && f.after_33.is_some_and(|b| b > f.created);
        seen.push(format!(
            "{} B: {} → {} → {}",
            size,
            thousands(f.created),
            opt(f.after_32),
            opt(f.after_33)
        ));
    }
    out.push(Verdict::new(
        claim("ALLOC-3"),
        m,
        Outcome::from_bool(holds && !seen.is_empty()),
        format!(
            "Bytes at creation → 32 queued → 33 queued: {}.",
            seen.join("; ")
        ),
    ));

    // ALLOC-4: futures-channel allocates per message.
    let slots = creation_fit(&d.sweep, Channel::FuturesMpsc).slope;
    // Alignment padding of the stub node puts the fitted slope a hair above 1.
    let mut holds = slots.round() <= 1.0;
    let mut per_message = Vec::new();
    for &(size, _) in GRID_SIZES {
        let p = point(d, Channel::FuturesMpsc, size, 1024)?;
        let f = &p.footprint;
        let added = bytes_between(p, ("full", f.full), ("created", f.created))?;
        let per = added as f64 / f.messages as f64;
        holds &= per >= size as f64;
        per_message.push(format!("{size} B → {per:.0} B"));
    }
    out.push(Verdict::new(
        claim("ALLOC-4"),
        m,
        Outcome::from_bool(holds && !per_message.is_empty()),
        format!(
            "Message slots allocated at creation: {slots:.2} (tokio: {:.2}); heap added per queued message: {}.",
            creation_fit(&d.sweep, Channel::TokioBounded).slope,
            per_message.join(", ")
        ),
    ));

    // ALLOC-5 and ALLOC-6: per-channel cost in the scenarios.
    for (id, scenario, target, tolerance) in SCENARIO_CLAIMS {
        let r = d
            .scenarios
            .iter()
            .find(|r| r.scenario == scenario && r.channel == Channel::TokioBounded && !r.boxed);
        out.push(match r {
            None => Verdict::not_measured(claim(id), "no tokio result for this scenario"),
            Some(r) => {
                let per = r.per_channel();
                let off = per / target - 1.0;
                Verdict::new(
                    claim(id),
                    m,
                    Outcome::from_bool(off.abs() <= tolerance),
                    format!(
                        "{} per channel over {} channels ({} from the published figure).",
                        bytes(per.round() as u64),
                        thousands(r.channels as u64),
                        percent_delta(off)
                    ),
                )
            }
        });
    }
    Ok(out)
}
