//! The shape check of an inline compose file: one YAML document whose top
//! level maps `services` to a non-empty mapping.
//!
//! The text comes from clients, so the check must cost little for any
//! input up to the field's size limit. It reads YAML as a stream of events
//! (saphyr-parser's pull parser, which neither recurses nor builds a
//! tree), never expands aliases (an alias is one event, however much its
//! anchor holds), stops at a nesting depth of [`MAX_DEPTH`] and after
//! [`MAX_EVENTS`] events. Time and memory are therefore linear in the
//! text's length.

use saphyr_parser::{Event, Parser};

/// Deepest nesting accepted (real compose files use fewer than ten).
pub const MAX_DEPTH: usize = 64;
/// Most YAML events read (a 128 KiB text yields far fewer).
pub const MAX_EVENTS: usize = 200_000;

/// What the scan saw, for tests of its cost.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    pub events: usize,
    pub depth: usize,
}

/// An open mapping or sequence.
struct Frame {
    map: bool,
    anchor: usize,
    children: usize,
    /// This is the value of the top-level `services` key.
    services: bool,
}

/// Checks `text` (the field `attr`); errors are Coolify-style messages.
pub fn check(attr: &str, text: &str) -> Result<Scan, String> {
    let shape = || format!("The {attr} must be a compose file with a services mapping.");
    let mut scan = Scan::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut documents = 0;
    let mut expect_services = false;
    // Some(non-empty) once the services value has been read.
    let mut services: Option<bool> = None;
    // Anchors of non-empty mappings: `services: *anchor` is checked
    // against these without expanding anything.
    let mut mapping_anchors: Vec<usize> = Vec::new();

    for next in Parser::new_from_str(text) {
        let (event, span) = next.map_err(|e| format!("The {attr} is not valid YAML: {e}"))?;
        scan.events += 1;
        if scan.events > MAX_EVENTS {
            return Err(format!("The {attr} has more than {MAX_EVENTS} YAML nodes."));
        }
        let depth = stack.len();
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(format!("The {attr} must hold one YAML document."));
                }
            }
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                let map = matches!(event, Event::MappingStart(..));
                if depth >= MAX_DEPTH {
                    return Err(format!(
                        "The {attr} nests deeper than {MAX_DEPTH} levels (line {}).",
                        span.start.line()
                    ));
                }
                if depth == 0 && !map {
                    return Err(shape());
                }
                let is_services = depth == 1 && expect_services;
                if is_services && !map {
                    return Err(shape());
                }
                expect_services &= !is_services;
                stack.push(Frame {
                    map,
                    anchor,
                    children: 0,
                    services: is_services,
                });
                scan.depth = scan.depth.max(stack.len());
            }
            Event::MappingEnd | Event::SequenceEnd => {
                let Some(done) = stack.pop() else {
                    return Err(shape());
                };
                if done.map && done.anchor != 0 && done.children > 0 {
                    mapping_anchors.push(done.anchor);
                }
                if done.services {
                    services = Some(done.children > 0);
                }
                if let Some(parent) = stack.last_mut() {
                    parent.children += 1;
                }
            }
            Event::Scalar(value, ..) => {
                let Some(parent) = stack.last_mut() else {
                    return Err(shape());
                };
                if depth == 1 {
                    if expect_services {
                        return Err(shape());
                    }
                    // Keys are the even children of the top mapping.
                    if parent.children % 2 == 0 && value == "services" {
                        if services.is_some() {
                            return Err(format!("The {attr} has two services keys."));
                        }
                        expect_services = true;
                    }
                }
                parent.children += 1;
            }
            Event::Alias(anchor) => {
                let Some(parent) = stack.last_mut() else {
                    return Err(shape());
                };
                if depth == 1 && expect_services {
                    if !mapping_anchors.contains(&anchor) {
                        return Err(shape());
                    }
                    expect_services = false;
                    services = Some(true);
                }
                parent.children += 1;
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
    }
    match services {
        Some(true) => Ok(scan),
        _ => Err(shape()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let rows = [
            ("services:\n  web:\n    image: nginx\n", true),
            ("x-base: &b {image: nginx}\nservices:\n  web: *b\n", true),
            ("all: &s {web: {image: x}}\nservices: *s\n", true),
            ("\"services\": {web: {}}\n", true),
            ("version: '3'\n", false),
            ("services: {}\n", false),
            ("services:\n", false),
            ("services: [a]\n", false),
            ("- services\n", false),
            ("", false),
            ("services: {a: 1}\nservices: {b: 2}\n", false),
            ("services: {a: 1}\n---\nx: 1\n", false),
            ("services: [a\n", false),
            ("services: {a: [1, 2\n", false),
        ];
        for (text, ok) in rows {
            assert_eq!(
                check("f", text).is_ok(),
                ok,
                "{text:?}: {:?}",
                check("f", text)
            );
        }
    }

    /// 128 KiB, the field's limit.
    const LIMIT: usize = 128 * 1024;

    #[test]
    fn aliases_are_never_expanded() {
        // One anchor referenced ~10,000 times, and nine layers of nine.
        let mut flat = String::from("x-a: &a [\"lol\", \"lol\", \"lol\"]\nx-b: [");
        while flat.len() < LIMIT - 40 {
            flat.push_str("*a, ");
        }
        flat.push_str("*a]\nservices: {web: {image: x}}\n");
        let scan = check("f", &flat).unwrap();
        assert!(scan.events < flat.len() / 3, "{scan:?}");

        let mut layered = String::from("x-0: &l0 [\"lol\"]\n");
        for i in 1..10 {
            let refs = vec![format!("*l{}", i - 1); 9].join(", ");
            layered.push_str(&format!("x-{i}: &l{i} [{refs}]\n"));
        }
        layered.push_str("services: {web: {image: x}}\n");
        assert!(check("f", &layered).unwrap().events < 200);
    }

    #[test]
    fn deep_nesting_stops_at_the_limit() {
        for open in ["[", "{", "- "] {
            let text = format!("services: {}", open.repeat(LIMIT / open.len()));
            let err = check("docker_compose_raw", &text).unwrap_err();
            assert!(err.starts_with("The docker_compose_raw"), "{err}");
        }
        let mut block = String::from("services:\n");
        for i in 0..200 {
            block.push_str(&format!("{}k{i}:\n", "  ".repeat(i + 1)));
        }
        assert!(check("f", &block).unwrap_err().contains("deeper than 64"));
    }

    #[test]
    fn wide_input_costs_one_event_per_node() {
        let mut text = String::from("services: {web: {image: x}}\nx-list: [");
        while text.len() < LIMIT - 10 {
            text.push_str("1, ");
        }
        text.push_str("1]\n");
        let scan = check("f", &text).unwrap();
        assert!(scan.events < text.len() / 2 && scan.depth == 3, "{scan:?}");
    }
}
