use trawl_core::ErrorCode;
use trawl_fetch::{Guard, GuardPolicy, HostRule};
use trawl_testkit::TestNames;

fn guard(policy: GuardPolicy) -> Guard {
    Guard::with_lookup(
        policy,
        TestNames::table(&[
            ("public.test", &["93.184.216.34"]),
            ("intranet.test", &["10.0.0.1"]),
            ("metadata.test", &["169.254.169.254"]),
            ("mixed.test", &["93.184.216.34", "192.168.0.10"]),
            ("v6local.test", &["fd00::1"]),
            ("mapped.test", &["::ffff:127.0.0.1"]),
            ("localhost", &["127.0.0.1"]),
        ])
        .lookup(),
    )
}

/// The full decision for a URL: syntax checks, then resolution of names.
async fn decide(g: &Guard, raw: &str) -> Result<(), ErrorCode> {
    let url = g.check_raw(raw, None).map_err(|e| e.code)?;
    g.resolve_checked(url.host_str().unwrap())
        .await
        .map(|_| ())
        .map_err(|e| e.code)
}

const REFUSED: &[&str] = &[
    // Loopback, private, link-local, CGNAT, special ranges as literals.
    "http://127.0.0.1/",
    "http://127.0.0.53:8080/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://100.64.0.1/",
    "http://0.0.0.0/",
    "http://255.255.255.255/",
    "http://224.0.0.1/",
    "http://240.0.0.1/",
    "http://192.0.2.1/",
    "http://198.18.0.1/",
    "http://[::1]/",
    "http://[::]/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd12::1]/",
    "http://[ff02::1]/",
    "http://[2001:db8::1]/",
    // IPv4-mapped / compatible / NAT64 / 6to4 forms.
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:7f00:1::]/",
    // Odd spellings.
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://127.1/",
    "http://127.0.1/",
    "http://0/",
    "http://127.0.0.1./",
    "http://%31%32%37.0.0.1/",
    "http://0xA9.0xFE.0xA9.0xFE/",
    "http://017700000001/",
    // Userinfo and backslash tricks.
    "http://public.test@127.0.0.1/",
    "http://user:pass@public.test/",
    "http://public.test\\@10.0.0.1/",
    "http://127.0.0.1\\@public.test/",
    // Names.
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost/",
    "http://intranet.test/",
    "http://metadata.test/",
    "http://mixed.test/",
    "http://v6local.test/",
    "http://mapped.test/",
    // Schemes.
    "file:///etc/passwd",
    "ftp://public.test/",
    "gopher://public.test/",
    "javascript:alert(1)",
    "data:text/html,hi",
];

#[tokio::test]
async fn refuses_every_class() {
    let g = guard(GuardPolicy::default());
    for raw in REFUSED {
        let got = decide(&g, raw).await;
        assert!(
            matches!(
                got,
                Err(ErrorCode::BlockedByPolicy) | Err(ErrorCode::InvalidInput)
            ),
            "{raw} should be refused, got {got:?}"
        );
    }
    assert!(REFUSED.len() >= 30);
}

#[tokio::test]
async fn admits_public_targets() {
    let g = guard(GuardPolicy::default());
    for raw in [
        "http://public.test/",
        "https://public.test:8443/a?b=c#d",
        "http://93.184.216.34/",
        "http://[2606:4700:4700::1111]/",
        "HTTP://PUBLIC.TEST/",
    ] {
        assert_eq!(decide(&g, raw).await, Ok(()), "{raw}");
    }
}

#[tokio::test]
async fn allow_host_opens_only_what_it_names() {
    let g = guard(GuardPolicy {
        allow_private_hosts: false,
        allow_hosts: vec![HostRule::parse("127.0.0.1").unwrap()],
    });
    assert_eq!(decide(&g, "http://127.0.0.1:8080/").await, Ok(()));
    for raw in [
        "http://127.0.0.2/",
        "http://10.0.0.1/",
        "http://169.254.169.254/",
        "http://127.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost/",
        "http://intranet.test/",
    ] {
        assert_eq!(
            decide(&g, raw).await,
            Err(ErrorCode::BlockedByPolicy),
            "{raw} must stay refused"
        );
    }
    let cidr = guard(GuardPolicy {
        allow_private_hosts: false,
        allow_hosts: vec![HostRule::parse("10.0.0.0/8").unwrap()],
    });
    assert_eq!(decide(&cidr, "http://intranet.test/").await, Ok(()));
    assert_eq!(
        decide(&cidr, "http://192.168.1.1/").await,
        Err(ErrorCode::BlockedByPolicy)
    );
    let by_name = guard(GuardPolicy {
        allow_private_hosts: false,
        allow_hosts: vec![HostRule::parse("metadata.test").unwrap()],
    });
    assert_eq!(decide(&by_name, "http://metadata.test/").await, Ok(()));
    assert_eq!(
        decide(&by_name, "http://intranet.test/").await,
        Err(ErrorCode::BlockedByPolicy)
    );
}

#[tokio::test]
async fn allow_private_hosts_opts_out_wholesale() {
    let g = guard(GuardPolicy {
        allow_private_hosts: true,
        allow_hosts: Vec::new(),
    });
    for raw in [
        "http://10.0.0.1/",
        "http://localhost/",
        "http://mixed.test/",
    ] {
        assert_eq!(decide(&g, raw).await, Ok(()), "{raw}");
    }
    // Schemes and userinfo stay refused even then.
    assert!(decide(&g, "file:///etc/passwd").await.is_err());
    assert!(decide(&g, "http://a@10.0.0.1/").await.is_err());
}

#[test]
fn host_rules_parse_and_reject() {
    assert!(matches!(
        HostRule::parse("10.0.0.0/8"),
        Ok(HostRule::Net(_))
    ));
    assert!(matches!(HostRule::parse("::1"), Ok(HostRule::Net(_))));
    assert!(matches!(HostRule::parse("[::1]"), Ok(HostRule::Net(_))));
    assert!(matches!(HostRule::parse("Example.COM."), Ok(HostRule::Name(n)) if n == "example.com"));
    assert!(HostRule::parse("").is_err());
    assert!(HostRule::parse("a b").is_err());
    assert!(HostRule::parse("10.0.0.0/99").is_err());
}

#[test]
fn relative_and_protocol_relative_locations_are_checked() {
    let g = guard(GuardPolicy::default());
    let base = url::Url::parse("http://public.test/a/b").unwrap();
    assert_eq!(
        g.check_raw("../c", Some(&base)).unwrap().as_str(),
        "http://public.test/c"
    );
    assert!(g.check_raw("//169.254.169.254/x", Some(&base)).is_err());
    assert!(g.check_raw("//2130706433/x", Some(&base)).is_err());
    assert!(g.check_raw("http://0x7f.1/", Some(&base)).is_err());
}

#[test]
fn an_overlong_url_is_invalid_input_with_a_short_message() {
    let g = guard(GuardPolicy::default());
    let long = format!("http://public.test/{}", "a".repeat(100_000));
    let err = g.check_raw(&long, None).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidInput);
    assert!(
        err.message.contains("URL") && err.message.len() < 300,
        "{}",
        err.message
    );
    let base = url::Url::parse("http://public.test/").unwrap();
    assert!(
        g.check_raw(&long, Some(&base)).is_err(),
        "in a Location too"
    );
    let fits = format!("http://public.test/{}", "a".repeat(8000));
    assert!(g.check_raw(&fits, None).is_ok());
}
