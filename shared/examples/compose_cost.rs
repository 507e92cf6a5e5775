//! Benchmark: what the compose check costs at the field's size limit
//! (128 KiB), for the inputs that used to exhaust a function (alias bombs,
//! deep nesting) and for ordinary wide files. Prints time and the
//! process's peak memory after each. Run with
//! `cargo run --release -p shared --example compose_cost`.

use std::time::Instant;

use shared::deploy::compose;

const LIMIT: usize = 128 * 1024;

fn peak_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn fill(mut text: String, unit: &str, tail: &str) -> String {
    while text.len() + unit.len() + tail.len() < LIMIT {
        text.push_str(unit);
    }
    text + tail
}

fn main() {
    let services = "services: {web: {image: nginx}}\n";
    let mut layered = String::from("x0: &a0 [\"lol\"]\n");
    let mut i = 1;
    while layered.len() < LIMIT - 200 {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        layered.push_str(&format!("x{i}: &a{i} [{refs}]\n"));
        i += 1;
    }
    layered.push_str(services);
    let mut block = String::from("services:\n");
    let mut depth = 1;
    while block.len() < LIMIT - 200 {
        block.push_str(&format!("{}k{depth}:\n", "  ".repeat(depth)));
        depth += 1;
    }
    let cases = [
        (
            "one anchor, aliased to the limit",
            fill(String::from("x: &a [\"lol\"]\ny: ["), "*a, ", "*a]\n") + services,
        ),
        ("layers of nine aliases each", layered),
        (
            "nested [ to the limit",
            fill(String::from("services: {web: "), "[", ""),
        ),
        ("nested { to the limit", fill(String::new(), "{a: ", "")),
        ("nested block mappings", block),
        (
            "flow list of 30,000+ numbers",
            fill(String::from(services) + "x: [", "1, ", "1]\n"),
        ),
        (
            "one long scalar",
            fill(String::from(services) + "x: ", "a", "\n"),
        ),
    ];
    println!(
        "{:34} {:>8} {:>10} {:>12}",
        "input (128 KiB)", "result", "time", "peak memory"
    );
    for (name, text) in cases {
        let started = Instant::now();
        let result = compose::check("docker_compose_raw", &text);
        let took = started.elapsed();
        println!(
            "{name:34} {:>8} {:>8.2?} {:>9} KiB",
            if result.is_ok() { "ok" } else { "refused" },
            took,
            peak_kib()
        );
    }
}
