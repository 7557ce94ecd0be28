//! [`TestNames`]: the one name resolver of trawl's tests. Names map to fixed addresses,
//! and a name the table does not hold is an error, so no test ever asks real DNS.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;

/// A table of host names to addresses, with an optional answer for every other name.
#[derive(Debug, Clone, Default)]
pub struct TestNames {
    table: HashMap<String, Vec<IpAddr>>,
    otherwise: Option<Vec<IpAddr>>,
}

impl TestNames {
    /// Every name is 127.0.0.1 (`http://github.com:PORT/` reaches a loopback server).
    pub fn loopback() -> Self {
        TestNames {
            table: HashMap::new(),
            otherwise: Some(vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]),
        }
    }

    /// Just these names, each to its addresses (written as text: `"10.0.0.1"`, `"fd00::1"`);
    /// any other name fails.
    pub fn table(entries: &[(&str, &[&str])]) -> Self {
        TestNames {
            table: entries
                .iter()
                .map(|(name, ips)| {
                    let ips = ips
                        .iter()
                        .map(|ip| ip.parse().unwrap_or_else(|e| panic!("{ip}: {e}")))
                        .collect();
                    ((*name).to_owned(), ips)
                })
                .collect(),
            otherwise: None,
        }
    }

    /// The addresses of `host`, or an error naming it.
    pub fn resolve(&self, host: &str) -> io::Result<Vec<IpAddr>> {
        self.table
            .get(host)
            .or(self.otherwise.as_ref())
            .cloned()
            .ok_or_else(|| io::Error::other(format!("unknown test name {host}")))
    }

    /// The table as a lookup function, shared (trawl-fetch takes any such function as its
    /// `Lookup`, so this coerces to `Arc<dyn Lookup>`).
    pub fn lookup(self) -> Arc<impl Fn(&str) -> io::Result<Vec<IpAddr>> + Send + Sync + 'static> {
        Arc::new(move |host: &str| self.resolve(host))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_answers_only_its_names() {
        let names = TestNames::table(&[("intranet.test", &["10.0.0.1", "fd00::1"])]);
        let ips = names.resolve("intranet.test").unwrap();
        assert_eq!(ips.len(), 2);
        assert_eq!(ips[0], "10.0.0.1".parse::<IpAddr>().unwrap());
        let err = names.resolve("elsewhere.test").unwrap_err();
        assert!(err.to_string().contains("elsewhere.test"), "{err}");
    }

    #[test]
    fn loopback_answers_every_name() {
        let lookup = TestNames::loopback().lookup();
        assert_eq!(
            lookup("github.com").unwrap(),
            vec![IpAddr::V4(Ipv4Addr::LOCALHOST)]
        );
    }
}
