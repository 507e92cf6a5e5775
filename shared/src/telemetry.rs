//! JSON logs through `tracing`, one line per event. `RUST_LOG` is a plain
//! level (`error`, `warn`, `info`, `debug`, `trace`; default `info`): a
//! full filter syntax would pull a regex engine into every binary for
//! nothing. Lambda's JSON log format expects exactly these lines.

use tracing::Level;

pub fn init() {
    let level = std::env::var("RUST_LOG")
        .ok()
        .and_then(|v| v.trim().parse::<Level>().ok())
        .unwrap_or(Level::INFO);
    let _ = tracing_subscriber::fmt()
        .json()
        .with_max_level(level)
        .with_current_span(false)
        .with_span_list(false)
        .flatten_event(true)
        .with_target(false)
        .without_time()
        .try_init();
}
