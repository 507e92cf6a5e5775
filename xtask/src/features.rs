//! What the Lambda functions are built with: aws-config's `sso` and
//! `credentials-process` (SSO profiles and a profile's `credential_process`,
//! which bring two more SDK clients and tokio's `process`) are for an
//! operator's machine, so only tools/ops asks for them. Cargo unifies a
//! package's features over everything one build selects, so a function (or
//! `shared`) that came to depend on them, or on a crate that enables them,
//! would put them in every Lambda bootstrap. These tests ask `cargo tree`
//! (offline, a fraction of a second) what each build resolves.

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// aws-config's features for an operator's machine only.
    const OPERATOR_ONLY: &[&str] = &["sso", "credentials-process"];

    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// The features of aws-config in the build that `cargo build <args>`
    /// would make for Lambda's target (arm64 Linux), dev-dependencies left
    /// out (what the binaries link). Panics when aws-config is not in it,
    /// so a check cannot pass on an empty answer.
    fn aws_config_features(args: &[&str]) -> Vec<String> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
        let out = Command::new(cargo)
            .current_dir(root())
            .args(["tree", "--offline", "--edges", "normal", "--prefix", "none"])
            .args([
                "--target",
                "aarch64-unknown-linux-gnu",
                "--format",
                "{p}|{f}",
            ])
            .args(args)
            .output()
            .expect("run cargo tree");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "cargo tree {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut features: Vec<String> = stdout
            .lines()
            .filter(|l| l.starts_with("aws-config v"))
            .flat_map(|l| l.split_once('|').map_or("", |(_, f)| f).split(','))
            .map(|f| f.trim_end_matches(" (*)").to_string())
            .filter(|f| !f.is_empty())
            .collect();
        assert!(
            stdout.lines().any(|l| l.starts_with("aws-config v")),
            "cargo tree {args:?} lists aws-config"
        );
        features.sort();
        features.dedup();
        features
    }

    /// Every function crate's package name (functions/<name>/Cargo.toml).
    fn functions() -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root().join("functions"))
            .expect("functions/")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("Cargo.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn lambda_builds_leave_out_the_operator_features() {
        let packages = functions();
        assert!(packages.len() >= 10, "functions/ holds {packages:?}");
        let each: Vec<String> = packages
            .iter()
            .flat_map(|p| ["-p".into(), p.clone()])
            .collect();
        // The workspace's default members (what `sam build` builds, its
        // `cargo lambda build --bin <fn>` selecting no package), and every
        // function crate by name (scripts/bench.sh, scripts/smoke-arm64.sh):
        // one function alone resolves a subset of what they all do.
        let builds: [(&str, Vec<&str>); 2] = [
            ("the default members", vec![]),
            ("the functions", each.iter().map(String::as_str).collect()),
        ];
        for (what, args) in builds {
            let features = aws_config_features(&args);
            let stray: Vec<&&str> = OPERATOR_ONLY
                .iter()
                .filter(|f| features.iter().any(|have| have == **f))
                .collect();
            assert!(
                stray.is_empty(),
                "{what} build aws-config with {stray:?} (all: {features:?}); only tools/ops may"
            );
        }
    }

    #[test]
    fn the_operator_tools_sign_in_as_the_aws_cli_does() {
        let features = aws_config_features(&["-p", "ops"]);
        for wanted in OPERATOR_ONLY {
            assert!(
                features.iter().any(|f| f == wanted),
                "tools/ops builds aws-config with {wanted} (has {features:?})"
            );
        }
    }
}
