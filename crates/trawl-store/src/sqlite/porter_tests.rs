//! The faster porter against SQLite's own, token by token and in the index.

use super::*;

/// A token as a tokenizer gave it: flags, bytes, start, end.
type Token = (c_int, Vec<u8>, c_int, c_int);

/// Collects tokens; stops (SQLITE_DONE) after `stop_after` of them when set.
#[derive(Default)]
struct Collected {
    tokens: Vec<Token>,
    stop_after: Option<usize>,
}

unsafe extern "C" fn collect(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    len: c_int,
    start: c_int,
    end: c_int,
) -> c_int {
    // SAFETY: `ctx` is the test's `Collected`; `token` holds `len` bytes.
    unsafe {
        let got = &mut *ctx.cast::<Collected>();
        let bytes = std::slice::from_raw_parts(token.cast::<u8>(), len as usize).to_vec();
        got.tokens.push((tflags, bytes, start, end));
        if got.stop_after == Some(got.tokens.len()) {
            return ffi::SQLITE_DONE;
        }
    }
    ffi::SQLITE_OK
}

/// A tokenizer instance made from a module, freed when dropped.
struct Instance {
    methods: ffi::fts5_tokenizer_v2,
    instance: *mut ffi::Fts5Tokenizer,
}

impl Instance {
    fn new(module: Builtin, args: &[&std::ffi::CStr]) -> Instance {
        let mut ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        let mut instance = ptr::null_mut();
        // SAFETY: the module is the connection's, still open; the arguments outlive the call.
        let rc = unsafe {
            (module.methods.xCreate.unwrap())(
                module.data,
                ptrs.as_mut_ptr(),
                ptrs.len() as c_int,
                &mut instance,
            )
        };
        assert_eq!(rc, ffi::SQLITE_OK);
        Instance {
            methods: module.methods,
            instance,
        }
    }

    fn tokens(&self, text: &str, flags: c_int, stop_after: Option<usize>) -> (c_int, Vec<Token>) {
        let mut got = Collected {
            tokens: Vec::new(),
            stop_after,
        };
        // SAFETY: as in `new`; `got` outlives the call.
        let rc = unsafe {
            (self.methods.xTokenize.unwrap())(
                self.instance,
                (&mut got as *mut Collected).cast(),
                flags,
                text.as_ptr().cast(),
                text.len() as c_int,
                ptr::null(),
                0,
                Some(collect),
            )
        };
        (rc, got.tokens)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: made by this module's xCreate, deleted once.
        unsafe { (self.methods.xDelete.unwrap())(self.instance) }
    }
}

/// An in-memory connection, and the built-in porter found on it before this module's was
/// registered over it.
fn connection_with_both() -> (Connection, Builtin, Builtin) {
    let conn = Connection::open_in_memory().unwrap();
    // SAFETY: the connection is open for the test.
    unsafe {
        let api = fts5_api(conn.handle()).unwrap();
        let builtin = find_tokenizer(api, c"porter").unwrap();
        register(&conn).unwrap();
        let ours = find_tokenizer(api, c"porter").unwrap();
        (conn, builtin, ours)
    }
}

/// Words with the suffixes each step of the Porter algorithm looks at.
fn english_words() -> Vec<String> {
    let stems = [
        "relat",
        "condit",
        "rat",
        "valen",
        "hesit",
        "digit",
        "conform",
        "radic",
        "differ",
        "vile",
        "analog",
        "vietnam",
        "predic",
        "operat",
        "feud",
        "decis",
        "hope",
        "form",
        "sens",
        "reference",
        "electr",
        "hop",
        "fil",
        "tann",
        "fall",
        "hiss",
        "fizz",
        "fail",
        "sky",
        "happ",
        "cry",
        "agree",
        "feed",
        "plaster",
        "bled",
        "motor",
        "sing",
        "conflat",
        "troubl",
        "siz",
        "controll",
        "roll",
        "generaliz",
        "general",
        "goodness",
        "revival",
        "allowance",
        "inference",
        "airline",
        "gyroscop",
        "adjust",
        "depend",
        "adopt",
        "activ",
        "bowdler",
        "homolog",
        "effect",
        "a",
        "ab",
        "abc",
        "yy",
        "oed",
        "ieee",
        "x1",
        "2024",
    ];
    let suffixes = [
        "", "s", "es", "ies", "ss", "sses", "ed", "eed", "ing", "ings", "y", "e", "ll", "ational",
        "tional", "enci", "anci", "izer", "bli", "abli", "alli", "entli", "eli", "ousli",
        "ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti",
        "biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful", "ness", "al", "ance",
        "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "sion", "tion", "ou",
        "ism", "ate", "iti", "ous", "ive", "ize", "at", "bl", "iz", "ly", "ements",
    ];
    let mut words = Vec::new();
    for stem in stems {
        for suffix in suffixes {
            words.push(format!("{stem}{suffix}"));
        }
    }
    words
}

/// A small deterministic generator for mixed text.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Texts that reach every path: each ASCII byte, mixed case, words of every length about
/// porter's limits, non-ASCII letters, digits, separators and diacritics inside and
/// between ASCII words, and random mixes of all of these.
fn texts() -> Vec<String> {
    let mut texts = Vec::new();
    let every_ascii: String = (0u8..128).map(|b| format!("x{}Y", b as char)).collect();
    texts.push(every_ascii);
    texts.push(english_words().join(" "));
    texts.push(english_words().join(" ").to_uppercase());
    for len in [1, 2, 3, 4, 62, 63, 64, 65, 66, 100, 300] {
        let word: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        texts.push(format!("{word} {} {word}s,{word}ing", word.to_uppercase()));
    }
    texts.push(
        "Café naïve résumé Straße ΩMEGA İstanbul ﬁle Ａbc x\u{301}y e\u{301}e 中文字符 \
         emoji😀word ٣٤ a\u{a0}b a\u{2003}b co-operate don't e-mail 3.14 x_y a$b"
            .to_owned(),
    );
    let pieces = [
        "running",
        "Running",
        "RUNNING",
        "the",
        "a",
        "Caresses",
        "ponies",
        "ties",
        "generalizations",
        "oscillators",
        "é",
        "É",
        "ß",
        "Ω",
        "中",
        "😀",
        "\u{301}",
        "ﬁ",
        "İ",
        "Ａ",
        "\u{a0}",
        "٣",
        "_",
        "-",
        ".",
        ",",
        "'",
        "\"",
        "\n",
        "\t",
        " ",
        "  ",
        "[",
        "](",
        ")",
        "#",
        "*",
        "`",
        "0",
        "42",
        "x9",
        "9x",
        "\u{0}",
        "\u{7f}",
        "ǅ",
        "ﬀ",
    ];
    let mut random = Xorshift(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let n = 1 + random.below(40);
        texts.push((0..n).map(|_| pieces[random.below(pieces.len())]).collect());
    }
    // More distinct words than the memo has slots, twice: words take each other's slots.
    let many: Vec<String> = (0..MEMO_SLOTS + 500)
        .map(|i| format!("w{i}ational"))
        .collect();
    texts.push(format!("{} {}", many.join(" "), many.join(" ")));
    texts
}

#[test]
fn documents_get_the_builtin_porters_tokens() {
    let (_conn, builtin, ours) = connection_with_both();
    for args in [&[c"unicode61"][..], &[], &[c"porter", c"unicode61"]] {
        let builtin = Instance::new(builtin, args);
        let ours = Instance::new(ours, args);
        for text in texts() {
            let expected = builtin.tokens(&text, ffi::FTS5_TOKENIZE_DOCUMENT, None);
            let got = ours.tokens(&text, ffi::FTS5_TOKENIZE_DOCUMENT, None);
            assert_eq!(got, expected, "args {args:?}, text {text:?}");
        }
    }
    let memo = MEMO.lock().unwrap();
    assert_eq!(memo.len(), MEMO_SLOTS);
    assert!(
        memo.iter().any(|slot| slot.word[0] != 0),
        "the memo was used"
    );
}

#[test]
fn the_memo_keeps_only_the_words_it_has_stems_for() {
    let (_conn, builtin, ours) = connection_with_both();
    let builtin = Instance::new(builtin, &[c"unicode61"]);
    let ours = Instance::new(ours, &[c"unicode61"]);
    let text = english_words().join(" ");
    assert_eq!(
        ours.tokens(&text, ffi::FTS5_TOKENIZE_DOCUMENT, None),
        builtin.tokens(&text, ffi::FTS5_TOKENIZE_DOCUMENT, None)
    );
    let memo = MEMO.lock().unwrap();
    for slot in memo.iter().filter(|slot| slot.word[0] != 0) {
        let bytes = lanes_bytes(&slot.word);
        let len = bytes.iter().position(|&b| b == 0).unwrap_or(MEMO_WORD);
        let word = std::str::from_utf8(&bytes[..len]).unwrap();
        let (_, tokens) = builtin.tokens(word, ffi::FTS5_TOKENIZE_DOCUMENT, None);
        assert_eq!(tokens.len(), 1);
        assert_eq!(tokens[0].1, &slot.stem[..slot.stem_len as usize], "{word}");
        assert_eq!(
            slot_of(&slot.word),
            memo.iter().position(|s| std::ptr::eq(s, slot)).unwrap()
        );
    }
}

#[test]
fn the_fast_path_is_taken_only_as_porter_unicode61() {
    assert!(is_porter_unicode61(&[b"unicode61"]));
    assert!(is_porter_unicode61(&[b"porter", b"UNICODE61"]));
    assert!(is_porter_unicode61(&[]));
    assert!(!is_porter_unicode61(&[
        b"unicode61",
        b"remove_diacritics",
        b"0"
    ]));
    assert!(!is_porter_unicode61(&[b"unicode61", b"tokenchars", b"_"]));
    assert!(!is_porter_unicode61(&[b"ascii"]));

    // Other arguments, queries and prefixes: the built-in's own answers.
    let (_conn, builtin, ours) = connection_with_both();
    let cases: [(&[&std::ffi::CStr], c_int); 4] = [
        (
            &[c"unicode61", c"tokenchars", c"_-"],
            ffi::FTS5_TOKENIZE_DOCUMENT,
        ),
        (
            &[c"unicode61", c"remove_diacritics", c"0"],
            ffi::FTS5_TOKENIZE_DOCUMENT,
        ),
        (&[c"ascii"], ffi::FTS5_TOKENIZE_DOCUMENT),
        (
            &[c"unicode61"],
            ffi::FTS5_TOKENIZE_QUERY | ffi::FTS5_TOKENIZE_PREFIX,
        ),
    ];
    for (args, flags) in cases {
        let builtin = Instance::new(builtin, args);
        let ours = Instance::new(ours, args);
        for text in texts().iter().take(40) {
            assert_eq!(
                ours.tokens(text, flags, None),
                builtin.tokens(text, flags, None)
            );
        }
    }
}

#[test]
fn a_stop_from_fts5_ends_the_document_where_the_builtin_ends_it() {
    let (_conn, builtin, ours) = connection_with_both();
    let builtin = Instance::new(builtin, &[c"unicode61"]);
    let ours = Instance::new(ours, &[c"unicode61"]);
    // The third token is inside a run the built-in tokenizes for this module.
    let text = "alpha beta gammaé delta épsilon zeta";
    for stop_after in 1..=6 {
        let flags = ffi::FTS5_TOKENIZE_DOCUMENT;
        let expected = builtin.tokens(text, flags, Some(stop_after));
        assert_eq!(expected.0, ffi::SQLITE_OK);
        assert_eq!(expected.1.len(), stop_after);
        assert_eq!(ours.tokens(text, flags, Some(stop_after)), expected);
    }
}

/// The terms, rows, columns and offsets an index holds, as `fts5vocab` lists them.
fn index_of(conn: &Connection, texts: &[String]) -> Vec<(String, i64, String, i64)> {
    conn.execute_batch(
        "CREATE VIRTUAL TABLE t USING fts5(heading, body, content='', contentless_delete=1,
             tokenize='porter unicode61');
         CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');",
    )
    .unwrap();
    for (i, text) in texts.iter().enumerate() {
        conn.execute(
            "INSERT INTO t(rowid, heading, body) VALUES (?1, ?2, ?3)",
            rusqlite::params![i as i64 + 1, &text[..text.len().min(12)], text],
        )
        .unwrap();
    }
    let mut stmt = conn
        .prepare("SELECT term, doc, col, offset FROM v ORDER BY term, doc, col, offset")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

#[test]
fn an_index_written_through_it_is_the_builtins_index() {
    let texts: Vec<String> = texts()
        .into_iter()
        .filter(|t| t.is_char_boundary(12.min(t.len())))
        .collect();
    let plain = Connection::open_in_memory().unwrap();
    let registered = Connection::open_in_memory().unwrap();
    register(&registered).unwrap();
    let expected = index_of(&plain, &texts);
    assert!(expected.len() > 10_000, "{} instances", expected.len());
    assert_eq!(index_of(&registered, &texts), expected);

    // And a query on either finds what the other's index holds.
    for conn in [&plain, &registered] {
        let hits: i64 = conn
            .query_row(
                "SELECT count(*) FROM t WHERE t MATCH 'generalizations'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(hits > 0);
    }
}

#[test]
fn the_store_writes_through_it_and_reads_with_the_builtin() {
    use super::super::pool::{Access, Target, open_connection};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    // Whether `porter` on `conn` tokenizes with this module.
    // SAFETY: the connection is open for the call.
    let ours = |conn: &Connection| unsafe {
        let api = fts5_api(conn.handle()).unwrap();
        let found = find_tokenizer(api, c"porter")
            .unwrap()
            .methods
            .xTokenize
            .unwrap();
        std::ptr::fn_addr_eq(found, tokenize as TokenizeFn)
    };
    let writer = open_connection(
        &Target::File {
            path: path.clone(),
            access: Access::ReadWrite,
        },
        std::time::Duration::from_secs(5),
    )
    .unwrap();
    assert!(ours(&writer));
    let reader = open_connection(
        &Target::File {
            path,
            access: Access::ReadOnly,
        },
        std::time::Duration::from_secs(5),
    )
    .unwrap();
    assert!(!ours(&reader));
}

#[test]
fn runs_are_found_eight_bytes_a_step_as_a_byte_at_a_time() {
    let separator = |b: u8| b < 0x80 && !b.is_ascii_alphanumeric();
    for text in texts().iter().take(120) {
        let bytes = text.as_bytes();
        for at in 0..=bytes.len() {
            let expected = |class: &dyn Fn(u8) -> bool| {
                (at..bytes.len())
                    .find(|&i| class(bytes[i]))
                    .unwrap_or(bytes.len())
            };
            assert_eq!(
                find(bytes, at, separator_bytes),
                expected(&separator),
                "{text:?} @{at}"
            );
            assert_eq!(
                find(bytes, at, token_bytes),
                expected(&|b| !separator(b)),
                "{text:?} @{at}"
            );
            let end = expected(&separator);
            assert_eq!(
                run_end(bytes, at),
                (end, bytes[at..end].is_ascii()),
                "{text:?} @{at}"
            );
        }
    }
}
