//! Format rules for the deploy API's string fields. Each takes the field's
//! display name (`git repository`) and returns the message a client sees,
//! in the wording Coolify's validator uses, so existing clients recognise
//! them.

pub type Check = fn(&str, &str) -> Result<(), String>;

fn invalid_format(attr: &str) -> String {
    format!("The {attr} field format is invalid.")
}

fn all_chars(value: &str, allowed: impl Fn(char) -> bool) -> bool {
    !value.is_empty() && value.chars().all(allowed)
}

fn path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._-/~@+".contains(c)
}

/// Characters no repository URL or branch needs, and every shell needs.
const SHELL_META: &str = ";|&$`(){}[]<>\"'\\!?*^%=+#";

/// A git repository a server may clone without credentials: http(s), git://
/// or `git@host:path`, no shell metacharacters, and no address inside the
/// server's own network.
pub fn git_repository(attr: &str, value: &str) -> Result<(), String> {
    if value
        .chars()
        .any(|c| SHELL_META.contains(c) || c.is_whitespace())
        || ["../", ";;", "&&", "||"].iter().any(|p| value.contains(p))
    {
        return Err(format!("The {attr} contains invalid characters."));
    }
    if let Some(rest) = value.strip_prefix("git@") {
        let (host, path) = rest.split_once(':').unwrap_or(("", ""));
        let host_ok = all_chars(host, |c| c.is_ascii_alphanumeric() || ".-".contains(c));
        let path_ok = all_chars(path, |c| c.is_ascii_alphanumeric() || "-_/.~".contains(c));
        if !(host_ok && path_ok) {
            return Err(format!("The {attr} is not a valid SSH repository address."));
        }
        return match url::Host::parse(host) {
            Ok(url::Host::Domain(h)) if !internal_host(&h) => Ok(()),
            Ok(url::Host::Domain(_)) => Err(format!("The {attr} cannot point to internal hosts.")),
            _ => Err(format!("The {attr} cannot use IP addresses.")),
        };
    }
    if !["https://", "http://", "git://"]
        .iter()
        .any(|p| value.starts_with(p))
    {
        return Err(format!(
            "The {attr} must start with https://, http://, git://, or git@."
        ));
    }
    let url = url::Url::parse(value).map_err(|_| format!("The {attr} is not a valid URL."))?;
    let internal = match url.host() {
        None => true,
        Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)) => {
            return Err(format!("The {attr} cannot use IP addresses."));
        }
        Some(url::Host::Domain(h)) => internal_host(h),
    };
    if internal {
        return Err(format!("The {attr} cannot point to internal hosts."));
    }
    if url.query().is_some() || url.fragment().is_some() || !all_chars(url.path(), path_char) {
        return Err(format!("The {attr} contains invalid characters."));
    }
    Ok(())
}

/// Names that resolve inside the server's own network.
fn internal_host(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    h == "localhost"
        || [".localhost", ".local", ".internal", ".localdomain"]
            .iter()
            .any(|s| h.ends_with(s))
        || !h.contains('.')
        || h.parse::<std::net::IpAddr>().is_ok()
}

/// A repository through a provider app: `owner/repo` or a URL of it.
pub fn provider_repository(attr: &str, value: &str) -> Result<(), String> {
    if value.contains("://") {
        return git_repository(attr, value);
    }
    let ok = all_chars(value, |c| c.is_ascii_alphanumeric() || "-_/.".contains(c))
        && value.trim_matches('/').contains('/')
        && !value.contains("..");
    if ok {
        Ok(())
    } else {
        Err(format!("The {attr} must be owner/repository or a URL."))
    }
}

/// A git branch name git itself would accept, without shell metacharacters.
pub fn git_branch(attr: &str, value: &str) -> Result<(), String> {
    let v = value.trim();
    let bad = v.is_empty()
        || !all_chars(v, |c| c.is_ascii_alphanumeric() || "-_/.".contains(c))
        || v.contains("..")
        || v.contains("//")
        || v.starts_with(['/', '.'])
        || v.ends_with(['/', '.'])
        || v == "HEAD"
        || v.ends_with(".lock");
    if bad {
        Err(format!("The {attr} contains invalid characters."))
    } else {
        Ok(())
    }
}

pub fn commit_sha(attr: &str, value: &str) -> Result<(), String> {
    let ok = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && all_chars(value, |c| c.is_ascii_alphanumeric() || "._-/".contains(c));
    if ok {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

fn port(raw: &str) -> Option<u16> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) || raw.len() > 5 {
        return None;
    }
    raw.parse::<u16>().ok().filter(|p| *p > 0)
}

/// `3000` or `3000,3001`: port numbers 1–65535, comma-separated.
pub fn ports(attr: &str, value: &str) -> Result<(), String> {
    if value.split(',').all(|p| port(p).is_some()) {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// `8080:80,8443:443`: host:container pairs, each host port used once.
pub fn port_mappings(attr: &str, value: &str) -> Result<(), String> {
    let mut hosts = Vec::new();
    for pair in value.split(',') {
        match pair.split_once(':') {
            Some((h, c)) if port(h).is_some() && port(c).is_some() => hosts.push(h),
            _ => return Err(invalid_format(attr)),
        }
    }
    let mut unique = hosts.clone();
    unique.sort_unstable();
    unique.dedup();
    if unique.len() == hosts.len() {
        Ok(())
    } else {
        Err("The first number before : should be unique between mappings.".into())
    }
}

/// One port number as a string (`health_check_port`).
pub fn single_port(attr: &str, value: &str) -> Result<(), String> {
    port(value)
        .map(|_| ())
        .ok_or_else(|| format!("The {attr} field must be a port number between 1 and 65535."))
}

/// A command made of words, quoted strings, `&&` and `||`: nothing that
/// substitutes, redirects or chains in the background.
pub fn shell_safe(attr: &str, value: &str) -> Result<(), String> {
    let word = |c: char| c.is_ascii_alphanumeric() || "._-/=:@,+[]{}#%^~*?!".contains(c);
    let mut rest = value;
    while !rest.is_empty() {
        let next = if rest.starts_with([' ', '\t']) {
            rest.trim_start_matches([' ', '\t'])
        } else if rest.starts_with("&&") || rest.starts_with("||") {
            &rest[2..]
        } else if let Some(quoted) = rest.strip_prefix('"') {
            match quoted.find(|c: char| "\"$`\\\n\r".contains(c)) {
                Some(i) if quoted[i..].starts_with('"') => &quoted[i + 1..],
                _ => return Err(unsafe_command(attr)),
            }
        } else if let Some(quoted) = rest.strip_prefix('\'') {
            match quoted.find(['\'', '\n', '\r']) {
                Some(i) if quoted[i..].starts_with('\'') => &quoted[i + 1..],
                _ => return Err(unsafe_command(attr)),
            }
        } else {
            let n = rest.find(|c: char| !word(c)).unwrap_or(rest.len());
            if n == 0 {
                return Err(unsafe_command(attr));
            }
            &rest[n..]
        };
        rest = next;
    }
    Ok(())
}

fn unsafe_command(attr: &str) -> String {
    format!("The {attr} contains characters that are not allowed in a command.")
}

/// An absolute directory inside the repository (`/`, `/app/web`).
pub fn directory(attr: &str, value: &str) -> Result<(), String> {
    match value.strip_prefix('/') {
        Some(rest) if rest.chars().all(path_char) && !value.contains("..") => Ok(()),
        _ => Err(invalid_format(attr)),
    }
}

/// An absolute file path inside the repository (`/docker-compose.yaml`).
pub fn file_path(attr: &str, value: &str) -> Result<(), String> {
    match value.strip_prefix('/') {
        Some(rest) if all_chars(rest, path_char) && !value.contains("..") => Ok(()),
        _ => Err(invalid_format(attr)),
    }
}

/// A container name (`app`, `web-1`).
pub fn container_name(attr: &str, value: &str) -> Result<(), String> {
    let ok = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && all_chars(value, |c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// A URL path for health checks (`/health`).
pub fn url_path(attr: &str, value: &str) -> Result<(), String> {
    if all_chars(value, |c| {
        c.is_ascii_alphanumeric() || "/-_.~%,;".contains(c)
    }) {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// A host name for health checks (`localhost`).
pub fn host_name(attr: &str, value: &str) -> Result<(), String> {
    if all_chars(value, |c| c.is_ascii_alphanumeric() || ".-_".contains(c)) {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// An image name, with an optional registry (`ghcr.io/a/b`, `nginx`).
pub fn image_name(attr: &str, value: &str) -> Result<(), String> {
    let ok = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && all_chars(value, |c| c.is_ascii_alphanumeric() || "._-/:@".contains(c));
    if ok {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// An image tag (`1.2`, `latest`) or a sha256 digest's hex.
pub fn image_tag(attr: &str, value: &str) -> Result<(), String> {
    let ok = value.len() <= 128
        && value.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && all_chars(value, |c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// Docker memory sizes: `0`, `512m`, `1.5g`.
pub fn memory(attr: &str, value: &str) -> Result<(), String> {
    let digits = value.trim_end_matches(['b', 'k', 'm', 'g', 'B', 'K', 'M', 'G']);
    if value.len() - digits.len() <= 1 && decimal(digits) {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

/// CPUs: `0`, `1.5`.
pub fn cpus(attr: &str, value: &str) -> Result<(), String> {
    if decimal(value) {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

fn decimal(v: &str) -> bool {
    let (int, frac) = v.split_once('.').unwrap_or((v, "0"));
    all_chars(int, |c| c.is_ascii_digit()) && all_chars(frac, |c| c.is_ascii_digit())
}

/// CPU sets: `0-3`, `0,2`.
pub fn cpuset(attr: &str, value: &str) -> Result<(), String> {
    let ok = value.split(',').all(|part| {
        let (a, b) = part.split_once('-').unwrap_or((part, "0"));
        all_chars(a, |c| c.is_ascii_digit()) && all_chars(b, |c| c.is_ascii_digit())
    });
    if ok {
        Ok(())
    } else {
        Err(invalid_format(attr))
    }
}

pub fn not_blank(attr: &str, value: &str) -> Result<(), String> {
    if value.trim().is_empty() {
        Err(format!("The {attr} field must not be empty."))
    } else {
        Ok(())
    }
}

/// A compose file: YAML whose top level maps `services` to at least one
/// service, checked at a cost bounded for any input ([`super::compose`]).
pub fn compose_yaml(attr: &str, value: &str) -> Result<(), String> {
    super::compose::check(attr, value).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(check: Check, rows: &[(&str, bool)]) {
        for (value, ok) in rows {
            assert_eq!(check("x", value).is_ok(), *ok, "{value:?}");
        }
    }

    #[test]
    fn repositories() {
        table(
            git_repository,
            &[
                ("https://github.com/coollabsio/coolify-examples", true),
                ("https://gitlab.com/a/b.git", true),
                ("git@github.com:a/b.git", true),
                ("git://example.org/a/b", true),
                ("https://github.com/a/b;rm -rf /", false),
                ("https://github.com/a/$(id)", false),
                ("ftp://example.org/a", false),
                ("https://localhost/a/b", false),
                ("https://10.0.0.1/a/b", false),
                ("https://gitea.local/a/b", false),
                ("https://localhost./a/b", false),
                ("https://x.localhost/a/b", false),
                ("git@localhost:a/b.git", false),
                ("git@127.0.0.1:a/b.git", false),
                ("https://github.com/a/b?x=1", false),
                ("github.com/a/b", false),
            ],
        );
        table(
            provider_repository,
            &[
                ("owner/repo", true),
                ("https://github.com/o/r", true),
                ("o", false),
            ],
        );
    }

    #[test]
    fn branches() {
        table(
            git_branch,
            &[
                ("main", true),
                ("feature/x-1", true),
                ("release/1.2", true),
                ("a b", false),
                ("a..b", false),
                ("HEAD", false),
                ("x.lock", false),
                ("/x", false),
                ("$(id)", false),
            ],
        );
    }

    #[test]
    fn ports_and_mappings() {
        table(
            ports,
            &[
                ("80", true),
                ("80,443", true),
                ("0", false),
                ("70000", false),
                ("80,", false),
                ("a", false),
            ],
        );
        table(
            port_mappings,
            &[
                ("8080:80", true),
                ("8080:80,8443:443", true),
                ("8080", false),
                ("1:2,1:3", false),
            ],
        );
        assert_eq!(
            port_mappings("ports mappings", "1:2,1:3").unwrap_err(),
            "The first number before : should be unique between mappings."
        );
    }

    #[test]
    fn commands() {
        table(
            shell_safe,
            &[
                ("npm run build", true),
                ("npm ci && npm run build", true),
                ("echo \"hello world\"", true),
                ("echo 'a;b'", true),
                ("rm -rf / ; echo", false),
                ("echo $(id)", false),
                ("echo `id`", false),
                ("a > b", false),
                ("a | b", false),
                ("a & b", false),
                ("echo \"$HOME\"", false),
            ],
        );
    }

    #[test]
    fn sizes_and_paths() {
        table(
            memory,
            &[
                ("0", true),
                ("512m", true),
                ("1.5g", true),
                ("lots", false),
                ("1mm", false),
            ],
        );
        table(cpus, &[("0", true), ("1.5", true), ("x", false)]);
        table(cpuset, &[("0-3", true), ("0,2", true), ("a", false)]);
        table(
            directory,
            &[
                ("/", true),
                ("/app/web", true),
                ("app", false),
                ("/a/../b", false),
            ],
        );
        table(file_path, &[("/docker-compose.yaml", true), ("/", false)]);
    }

    #[test]
    fn compose_needs_services() {
        assert!(compose_yaml("x", "services:\n  web:\n    image: nginx\n").is_ok());
        assert!(compose_yaml("x", "version: '3'\n").is_err());
        assert!(compose_yaml("x", "services: [a\n").is_err());
        assert!(compose_yaml("x", "services: {}\n").is_err());
    }
}
