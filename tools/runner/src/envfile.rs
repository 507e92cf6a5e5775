//! Env files: how runtime values reach a container without ever being a
//! command-line argument (which any user on the server can read in `ps`).
//!
//! `docker run --env-file` takes `KEY=VALUE` lines literally, with no
//! quoting, so it cannot hold a value with a line break; such a value is
//! passed as `-e KEY` instead, with the value in the docker CLI's own
//! environment, which docker reads it from. Compose's env file (used to
//! interpolate the compose file) is a dotenv file: values are quoted so
//! that they are taken as written.

use crate::job::EnvVar;

/// A key docker and compose can take: a shell-like name.
pub fn valid_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
}

/// A key that must not be put into the docker CLI's (or git's) own
/// environment, as build-time and multiline values are: it would change
/// how the CLI itself runs (`DOCKER_HOST`, `LD_PRELOAD`, `PATH`...).
pub fn steers_the_cli(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    const NAMES: &[&str] = &[
        "PATH",
        "HOME",
        "USER",
        "SHELL",
        "TMPDIR",
        "IFS",
        crate::TOKEN_ENV,
    ];
    const PREFIXES: &[&str] = &[
        "DOCKER_",
        "BUILDKIT_",
        "BUILDX_",
        "COMPOSE_",
        "LD_",
        "DYLD_",
        "GIT_",
        "SSL_",
        "XDG_",
    ];
    NAMES.contains(&upper.as_str())
        || PREFIXES.iter().any(|p| upper.starts_with(p))
        || upper.ends_with("_PROXY")
}

/// The runtime variables for `docker run`: the env file's text, and the
/// variables that cannot be in it (multiline values).
pub fn for_docker_run(env: &[EnvVar]) -> (String, Vec<&EnvVar>) {
    let mut file = String::new();
    let mut outside = Vec::new();
    for var in env.iter().filter(|v| v.is_runtime) {
        if var.value.contains(['\n', '\r']) {
            outside.push(var);
        } else {
            file.push_str(&format!("{}={}\n", var.key, var.value));
        }
    }
    (file, outside)
}

/// The runtime variables as a dotenv file for `docker compose --env-file`.
pub fn for_compose(env: &[EnvVar]) -> String {
    let mut file = String::new();
    for var in env.iter().filter(|v| v.is_runtime) {
        file.push_str(&var.key);
        file.push('=');
        file.push_str(&dotenv_quote(&var.value));
        file.push('\n');
    }
    file
}

/// Single quotes (literal) when they can hold the value, else double
/// quotes with backslash escapes.
fn dotenv_quote(value: &str) -> String {
    if !value.contains(['\'', '\n', '\r']) {
        return format!("'{value}'");
    }
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(key: &str, value: &str, runtime: bool) -> EnvVar {
        EnvVar {
            key: key.into(),
            value: value.into(),
            is_runtime: runtime,
            ..EnvVar::default()
        }
    }

    #[test]
    fn docker_run_file_is_literal_lines_and_multiline_stays_out() {
        let env = [
            var("A", "one two = three", true),
            var("B", "only at build", false),
            var("C", "line1\nline2", true),
            var("D", "", true),
        ];
        let (file, outside) = for_docker_run(&env);
        assert_eq!(file, "A=one two = three\nD=\n");
        assert_eq!(outside.len(), 1);
        assert_eq!(outside[0].key, "C");
    }

    #[test]
    fn compose_file_quotes_values() {
        let env = [
            var("A", "plain $HOME", true),
            var("B", "it's \"x\" \\ $y\nz", true),
            var("C", "skipped", false),
        ];
        assert_eq!(
            for_compose(&env),
            "A='plain $HOME'\nB=\"it's \\\"x\\\" \\\\ \\$y\\nz\"\n"
        );
    }

    #[test]
    fn keys_that_would_steer_the_cli() {
        for key in [
            "DOCKER_HOST",
            "ld_preload",
            "PATH",
            "GIT_SSH_COMMAND",
            "https_proxy",
            "RUNNER_TOKEN",
        ] {
            assert!(steers_the_cli(key), "{key}");
        }
        for key in ["NODE_ENV", "APP_DOCKER_TAG", "PATHNAME", "API_KEY"] {
            assert!(!steers_the_cli(key), "{key}");
        }
    }

    #[test]
    fn keys() {
        for ok in ["A", "_X", "APP_KEY_2", "a.b-c"] {
            assert!(valid_key(ok), "{ok}");
        }
        for bad in ["", "1A", "A B", "A=B", "-A", "A\nB", "É"] {
            assert!(!valid_key(bad), "{bad:?}");
        }
    }
}
