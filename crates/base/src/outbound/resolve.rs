//! The check at delivery: resolve once, judge every address, hand the
//! sender the one address it may connect to.

use std::future::Future;
use std::io;
use std::net::SocketAddr;

use super::allow::AllowList;
use super::class::AddressClass;
use super::target::{Host, Remaining, Target, TargetError};

/// Turns a host name into addresses. Injected so that tests never touch
/// DNS, and so the sender can wrap the lookup in its own timeout.
pub trait Resolve {
    fn resolve(
        &self,
        host: &str,
        port: u16,
    ) -> impl Future<Output = io::Result<Vec<SocketAddr>>> + Send;
}

/// The operating system's resolver (`getaddrinfo` on a blocking thread,
/// through tokio), for production.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    async fn resolve(&self, host: &str, port: u16) -> io::Result<Vec<SocketAddr>> {
        Ok(tokio::net::lookup_host((host, port)).await?.collect())
    }
}

/// Repeats the URL's checks under `allow`, resolves a name (a literal
/// address is not looked up), refuses the target if any of its addresses
/// is not allowed, and returns the one address the sender must connect
/// to: the resolver's first (getaddrinfo orders them by preference), with
/// the target's port.
///
/// Every address counts, not just the first: a name answering with one
/// public and one private address is refused, since a later lookup (the
/// HTTP client's own, or a rebinding DNS server's next answer) may pick
/// the private one. Connecting only to the returned address is what makes
/// the check hold; the sender still sends [`Target::host_str`] as `Host`
/// and TLS server name.
pub async fn resolve_checked(
    target: &Target,
    allow: &AllowList,
    resolver: &impl Resolve,
) -> Result<SocketAddr, TargetError> {
    let remaining = target.check_host(allow)?;
    let name = match target.host() {
        Host::Ip(ip) => return Ok(SocketAddr::new(*ip, target.port())),
        Host::Name(name) => name,
    };
    let addresses =
        resolver
            .resolve(name, target.port())
            .await
            .map_err(|e| TargetError::Unresolved {
                host: name.clone(),
                reason: e.to_string(),
            })?;
    let first = addresses
        .first()
        .ok_or_else(|| TargetError::NoAddress(name.clone()))?;
    if remaining == Remaining::EveryAddress {
        let refused = addresses
            .iter()
            .map(SocketAddr::ip)
            .find(|ip| !allow.allows_ip(*ip));
        if let Some(addr) = refused {
            return Err(TargetError::RefusedAddress {
                host: name.clone(),
                addr,
                class: AddressClass::of(addr),
            });
        }
    }
    Ok(SocketAddr::new(first.ip(), target.port()))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::net::IpAddr;
    use std::sync::Mutex;

    use super::*;
    use crate::outbound::check_url;

    /// Answers from a table and writes down every question; never DNS.
    /// Its answers carry port 1, so a test sees the target's port win.
    struct FakeResolver {
        answers: HashMap<&'static str, Vec<&'static str>>,
        asked: Mutex<Vec<String>>,
    }

    impl FakeResolver {
        fn new(answers: &[(&'static str, &[&'static str])]) -> Self {
            Self {
                answers: answers.iter().map(|(h, a)| (*h, a.to_vec())).collect(),
                asked: Mutex::default(),
            }
        }

        fn asked(&self) -> Vec<String> {
            self.asked.lock().unwrap().clone()
        }
    }

    impl Resolve for FakeResolver {
        async fn resolve(&self, host: &str, _port: u16) -> io::Result<Vec<SocketAddr>> {
            self.asked.lock().unwrap().push(host.to_owned());
            let answer = self.answers.get(host).ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, "no such host (fake resolver)")
            })?;
            Ok(answer
                .iter()
                .map(|ip| SocketAddr::new(ip.parse::<IpAddr>().unwrap(), 1))
                .collect())
        }
    }

    fn resolver() -> FakeResolver {
        FakeResolver::new(&[
            (
                "public.example",
                &["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
            ),
            ("private.example", &["10.0.0.5"]),
            ("mixed.example", &["93.184.215.14", "192.168.1.10"]),
            ("rebind.example", &["93.184.215.14", "169.254.169.254"]),
            ("mapped.example", &["::ffff:127.0.0.1"]),
            ("empty.example", &[]),
            ("localhost", &["127.0.0.1", "::1"]),
            ("ci.corp.example", &["10.1.2.3"]),
        ])
    }

    async fn deliver(url: &str, list: &str, resolver: &FakeResolver) -> Result<SocketAddr, String> {
        let allow = AllowList::parse(list).unwrap();
        let target = check_url(url, &allow).map_err(|e| e.to_string())?;
        resolve_checked(&target, &allow, resolver)
            .await
            .map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn every_address_of_a_name_is_judged() {
        // (url, allow list, the address to connect to or the message)
        let table: &[(&str, &str, Result<&str, &str>)] = &[
            (
                "https://public.example/hook",
                "external",
                Ok("93.184.215.14:443"),
            ),
            (
                "http://public.example:8080/",
                "external",
                Ok("93.184.215.14:8080"),
            ),
            (
                "http://private.example/",
                "external",
                Err(
                    "the target private.example resolves to 10.0.0.5, a private address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            ("http://private.example/", "private", Ok("10.0.0.5:80")),
            (
                "http://mixed.example/",
                "external",
                Err(
                    "the target mixed.example resolves to 192.168.1.10, a private address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            (
                "http://mixed.example/",
                "private",
                Err(
                    "the target mixed.example resolves to 93.184.215.14, a public address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            (
                "http://mixed.example/",
                "external,private",
                Ok("93.184.215.14:80"),
            ),
            (
                "http://rebind.example/",
                "external,private",
                Err(
                    "the target rebind.example resolves to 169.254.169.254, a cloud instance-metadata service, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            (
                "http://mapped.example/",
                "external",
                Err(
                    "the target mapped.example resolves to ::ffff:127.0.0.1, a loopback address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            ("http://localhost:9000/", "loopback", Ok("127.0.0.1:9000")),
            (
                "http://localhost:9000/",
                "external",
                Err(
                    "the target localhost is a loopback address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            (
                "http://public.example/",
                "loopback",
                Err(
                    "the target public.example resolves to 93.184.215.14, a public address, which this instance does not call (see HOOK_ALLOWED_HOSTS)",
                ),
            ),
            // A name the list vouches for is called wherever it points.
            (
                "http://ci.corp.example/",
                "*.corp.example",
                Ok("10.1.2.3:80"),
            ),
            ("http://rebind.example/", "*", Ok("93.184.215.14:80")),
            (
                "http://empty.example/",
                "external",
                Err("the host empty.example resolves to no address"),
            ),
            (
                "http://unknown.example/",
                "external",
                Err("the host unknown.example could not be resolved: no such host (fake resolver)"),
            ),
        ];
        for (url, list, expected) in table {
            let got = deliver(url, list, &resolver()).await;
            let expected = expected.map(str::parse::<SocketAddr>).map(Result::unwrap);
            assert_eq!(got, expected.map_err(str::to_owned), "{url} under {list}");
        }
    }

    #[tokio::test]
    async fn literal_addresses_are_never_looked_up() {
        let table = [
            ("http://93.184.215.14/", "external", "93.184.215.14:80"),
            (
                "https://[2606:4700::1111]:8443/",
                "external",
                "[2606:4700::1111]:8443",
            ),
            ("http://127.0.0.1:9000/", "loopback", "127.0.0.1:9000"),
            ("http://[::1]:9000/", "loopback", "[::1]:9000"),
        ];
        for (url, list, addr) in table {
            let resolver = resolver();
            assert_eq!(
                deliver(url, list, &resolver).await,
                Ok(addr.parse().unwrap())
            );
            assert!(resolver.asked().is_empty(), "{url} was looked up");
        }
    }

    #[tokio::test]
    async fn names_are_looked_up_once() {
        let resolver = resolver();
        deliver("http://public.example/", "external", &resolver)
            .await
            .unwrap();
        assert_eq!(resolver.asked(), ["public.example"]);
    }

    #[tokio::test]
    async fn the_checked_address_is_the_one_to_connect_to() {
        // The sender connects to exactly this SocketAddr: the resolver's
        // first address (not whatever port it reported) with the URL's port.
        let resolver = FakeResolver::new(&[("hooks.example", &["203.0.114.7", "203.0.114.8"])]);
        let allow = AllowList::external();
        let target = check_url("https://hooks.example:8443/x", &allow).unwrap();
        let addr = resolve_checked(&target, &allow, &resolver).await.unwrap();
        assert_eq!(addr, "203.0.114.7:8443".parse().unwrap());
        assert_eq!(target.host_str(), "hooks.example");
    }

    #[tokio::test]
    async fn the_list_in_force_at_delivery_decides() {
        // A hook saved while loopback was allowed is refused once it is not.
        let resolver = resolver();
        let target =
            check_url("http://127.0.0.1/", &AllowList::parse("loopback").unwrap()).unwrap();
        let err = resolve_checked(&target, &AllowList::external(), &resolver)
            .await
            .unwrap_err();
        assert!(matches!(
            err,
            TargetError::Refused {
                class: AddressClass::Loopback,
                ..
            }
        ));
        assert!(resolver.asked().is_empty());
    }
}
