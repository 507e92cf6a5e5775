//! What the documents tell an operator to install is what builds and what
//! CI uses: the README's Rust is the workspace's `rust-version`, the true
//! minimum (no locked package asks for a newer compiler, by its own
//! manifest's `rust-version`), and docs/operations.md ("First deploy")
//! pins the Python tools as `.ci/run` pins them.

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// `1.94.1` → (1, 94, 1); missing parts are 0.
    fn version(text: &str) -> (u64, u64, u64) {
        let mut parts = text.split('.').map(|p| p.parse().unwrap_or(0));
        let mut next = || parts.next().unwrap_or(0);
        (next(), next(), next())
    }

    /// The `rust-version` a manifest declares, if any.
    fn rust_version_of(manifest: &str) -> Option<String> {
        manifest.lines().find_map(|l| {
            let rest = l.trim().strip_prefix("rust-version")?.trim_start();
            let value = rest.strip_prefix('=')?.trim().trim_matches('"');
            (!value.is_empty() && !value.contains("workspace")).then(|| value.to_string())
        })
    }

    /// Every locked package that is unpacked in cargo's registry (all this
    /// machine built) with the `rust-version` its manifest declares. Read
    /// from the files, not `cargo metadata`, which would fetch the packages
    /// of other platforms from the network.
    fn locked_rust_versions(root: &Path) -> Vec<(String, String)> {
        let lock = std::fs::read_to_string(root.join("Cargo.lock")).expect("Cargo.lock");
        let home = std::env::var("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| Path::new(&std::env::var("HOME").expect("HOME")).join(".cargo"));
        let sources: Vec<std::path::PathBuf> = std::fs::read_dir(home.join("registry/src"))
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        let mut out = Vec::new();
        for block in lock.split("[[package]]").skip(1) {
            let field = |name: &str| {
                block.lines().find_map(|l| {
                    l.strip_prefix(name)?
                        .trim_start()
                        .strip_prefix('=')
                        .map(|v| v.trim().trim_matches('"').to_string())
                })
            };
            let (Some(name), Some(version)) = (field("name"), field("version")) else {
                continue;
            };
            if field("source").is_none() {
                continue; // the workspace's own
            }
            for src in &sources {
                let manifest = src.join(format!("{name}-{version}")).join("Cargo.toml");
                if let Ok(text) = std::fs::read_to_string(&manifest) {
                    if let Some(needs) = rust_version_of(&text) {
                        out.push((format!("{name} {version}"), needs));
                    }
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn the_declared_rust_version_covers_every_locked_package() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let workspace = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
        let declared = rust_version_of(&workspace).expect("the workspace declares rust-version");
        let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
        assert!(
            readme.contains(&format!("You need Rust {declared} or newer")),
            "README.md states Rust {declared}"
        );
        let locked = locked_rust_versions(&root);
        assert!(
            locked.len() > 50,
            "the registry holds the locked packages: {}",
            locked.len()
        );
        let mut newer: Vec<String> = locked
            .iter()
            .filter(|(_, needs)| version(needs) > version(&declared))
            .map(|(package, needs)| format!("{package} needs {needs}"))
            .collect();
        newer.sort();
        assert!(
            newer.is_empty(),
            "rust-version {declared} in Cargo.toml is below what locked packages need: {newer:#?}"
        );
    }

    #[test]
    fn the_deploy_guide_pins_the_python_tools_ci_installs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
        let (ci, guide) = (read(".ci/run"), read("docs/operations.md"));
        let pins: Vec<&str> = ci
            .split('\'')
            .filter(|w| w.starts_with("cargo-lambda==") || w.starts_with("aws-sam-cli=="))
            .collect();
        assert_eq!(pins.len(), 2, ".ci/run pins cargo-lambda and the SAM CLI");
        for pin in pins {
            assert!(
                guide.contains(&format!("'{pin}'")),
                "docs/operations.md installs {pin}"
            );
        }
        assert!(
            !guide.contains("pip install aws-sam-cli"),
            "no unpinned, system-wide install"
        );
    }
}
