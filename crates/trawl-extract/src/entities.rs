//! Character references: decoding `&name;`, `&#NN;` and `&#xHH;` in text and attribute
//! values. The named table is the HTML 4 set plus common HTML 5 punctuation, generated once
//! from the WHATWG table (names with `;`) and sorted by name for binary search.

use memchr::memchr2;

/// Append `s` to `out` with character references decoded. In text, NBSP becomes a plain
/// space (the Markdown writer collapses whitespace anyway).
pub(crate) fn decode_into(s: &str, out: &mut String, in_attribute: bool) {
    let bytes = s.as_bytes();
    let mut pos = 0;
    loop {
        let Some(off) = memchr2(b'&', 0xC2, &bytes[pos..]) else {
            out.push_str(&s[pos..]);
            return;
        };
        let at = pos + off;
        out.push_str(&s[pos..at]);
        if bytes[at] == 0xC2 {
            // U+00A0 is C2 A0 in UTF-8.
            if bytes.get(at + 1) == Some(&0xA0) && !in_attribute {
                out.push(' ');
            } else {
                out.push_str(&s[at..at + 2]);
            }
            pos = at + 2;
            continue;
        }
        match decode_reference(&bytes[at + 1..]) {
            Some((ch, used)) => {
                match ch {
                    Decoded::Char('\u{a0}') if !in_attribute => out.push(' '),
                    Decoded::Char(c) => out.push(c),
                    Decoded::Str(t) => out.push_str(t),
                }
                pos = at + 1 + used;
            }
            None => {
                out.push('&');
                pos = at + 1;
            }
        }
    }
}

enum Decoded {
    Char(char),
    Str(&'static str),
}

/// Decode the reference after an `&`: returns the text and how many bytes it used.
fn decode_reference(rest: &[u8]) -> Option<(Decoded, usize)> {
    if rest.first() == Some(&b'#') {
        let (hex, start) = match rest.get(1) {
            Some(b'x' | b'X') => (true, 2),
            _ => (false, 1),
        };
        let mut end = start;
        let mut value: u32 = 0;
        while end < rest.len() && end - start < 8 {
            let digit = match (hex, rest[end]) {
                (_, b @ b'0'..=b'9') => (b - b'0') as u32,
                (true, b @ b'a'..=b'f') => (b - b'a' + 10) as u32,
                (true, b @ b'A'..=b'F') => (b - b'A' + 10) as u32,
                _ => break,
            };
            value = value * if hex { 16 } else { 10 } + digit;
            end += 1;
        }
        if end == start {
            return None;
        }
        if rest.get(end) == Some(&b';') {
            end += 1;
        }
        let ch = match value {
            0 => '\u{fffd}',
            // Windows-1252 remapping of C1 controls, as browsers do.
            0x80..=0x9f => windows_1252_c1(value),
            v => char::from_u32(v).unwrap_or('\u{fffd}'),
        };
        return Some((Decoded::Char(ch), end));
    }
    let mut end = 0;
    while end < rest.len() && end < 32 && rest[end].is_ascii_alphanumeric() {
        end += 1;
    }
    if end == 0 {
        return None;
    }
    let name = std::str::from_utf8(&rest[..end]).ok()?;
    let value = ENTITIES
        .binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes()))
        .ok()
        .map(|i| ENTITIES[i].1)?;
    let with_semicolon = rest.get(end) == Some(&b';');
    // Without `;` only the legacy few are recognised (as browsers do).
    if !with_semicolon && !matches!(name, "amp" | "lt" | "gt" | "quot" | "nbsp" | "copy" | "reg") {
        return None;
    }
    let used = end + usize::from(with_semicolon);
    let mut chars = value.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some((Decoded::Char(c), used)),
        _ => Some((Decoded::Str(value), used)),
    }
}

fn windows_1252_c1(v: u32) -> char {
    const TABLE: [u16; 32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x8D, 0x017D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013,
        0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ];
    char::from_u32(TABLE[(v - 0x80) as usize] as u32).unwrap_or('\u{fffd}')
}

static ENTITIES: &[(&str, &str)] = &[
    ("AElig", "\u{c6}"),
    ("Aacute", "\u{c1}"),
    ("Acirc", "\u{c2}"),
    ("Agrave", "\u{c0}"),
    ("Alpha", "\u{391}"),
    ("Aring", "\u{c5}"),
    ("Atilde", "\u{c3}"),
    ("Auml", "\u{c4}"),
    ("Beta", "\u{392}"),
    ("Ccedil", "\u{c7}"),
    ("Chi", "\u{3a7}"),
    ("Dagger", "\u{2021}"),
    ("Delta", "\u{394}"),
    ("ETH", "\u{d0}"),
    ("Eacute", "\u{c9}"),
    ("Ecirc", "\u{ca}"),
    ("Egrave", "\u{c8}"),
    ("Epsilon", "\u{395}"),
    ("Eta", "\u{397}"),
    ("Euml", "\u{cb}"),
    ("Gamma", "\u{393}"),
    ("Iacute", "\u{cd}"),
    ("Icirc", "\u{ce}"),
    ("Igrave", "\u{cc}"),
    ("Iota", "\u{399}"),
    ("Iuml", "\u{cf}"),
    ("Kappa", "\u{39a}"),
    ("Lambda", "\u{39b}"),
    ("Mu", "\u{39c}"),
    ("NewLine", "\u{a}"),
    ("Ntilde", "\u{d1}"),
    ("Nu", "\u{39d}"),
    ("OElig", "\u{152}"),
    ("Oacute", "\u{d3}"),
    ("Ocirc", "\u{d4}"),
    ("Ograve", "\u{d2}"),
    ("Omega", "\u{3a9}"),
    ("Omicron", "\u{39f}"),
    ("Oslash", "\u{d8}"),
    ("Otilde", "\u{d5}"),
    ("Ouml", "\u{d6}"),
    ("Phi", "\u{3a6}"),
    ("Pi", "\u{3a0}"),
    ("Prime", "\u{2033}"),
    ("Psi", "\u{3a8}"),
    ("Rho", "\u{3a1}"),
    ("Scaron", "\u{160}"),
    ("Sigma", "\u{3a3}"),
    ("THORN", "\u{de}"),
    ("Tab", "\u{9}"),
    ("Tau", "\u{3a4}"),
    ("Theta", "\u{398}"),
    ("Uacute", "\u{da}"),
    ("Ucirc", "\u{db}"),
    ("Ugrave", "\u{d9}"),
    ("Upsilon", "\u{3a5}"),
    ("Uuml", "\u{dc}"),
    ("Xi", "\u{39e}"),
    ("Yacute", "\u{dd}"),
    ("Yuml", "\u{178}"),
    ("Zeta", "\u{396}"),
    ("aacute", "\u{e1}"),
    ("acirc", "\u{e2}"),
    ("acute", "\u{b4}"),
    ("aelig", "\u{e6}"),
    ("agrave", "\u{e0}"),
    ("alefsym", "\u{2135}"),
    ("alpha", "\u{3b1}"),
    ("amp", "&"),
    ("and", "\u{2227}"),
    ("ang", "\u{2220}"),
    ("apos", "'"),
    ("aring", "\u{e5}"),
    ("ast", "*"),
    ("asymp", "\u{2248}"),
    ("atilde", "\u{e3}"),
    ("auml", "\u{e4}"),
    ("bdquo", "\u{201e}"),
    ("beta", "\u{3b2}"),
    ("brvbar", "\u{a6}"),
    ("bsol", "\u{5c}"),
    ("bull", "\u{2022}"),
    ("cap", "\u{2229}"),
    ("ccedil", "\u{e7}"),
    ("cedil", "\u{b8}"),
    ("cent", "\u{a2}"),
    ("check", "\u{2713}"),
    ("chi", "\u{3c7}"),
    ("circ", "\u{2c6}"),
    ("clubs", "\u{2663}"),
    ("colon", ":"),
    ("comma", ","),
    ("cong", "\u{2245}"),
    ("copy", "\u{a9}"),
    ("crarr", "\u{21b5}"),
    ("cross", "\u{2717}"),
    ("cup", "\u{222a}"),
    ("curren", "\u{a4}"),
    ("dArr", "\u{21d3}"),
    ("dagger", "\u{2020}"),
    ("darr", "\u{2193}"),
    ("dash", "\u{2010}"),
    ("deg", "\u{b0}"),
    ("delta", "\u{3b4}"),
    ("diams", "\u{2666}"),
    ("divide", "\u{f7}"),
    ("dollar", "$"),
    ("eacute", "\u{e9}"),
    ("ecirc", "\u{ea}"),
    ("egrave", "\u{e8}"),
    ("empty", "\u{2205}"),
    ("emsp", "\u{2003}"),
    ("ensp", "\u{2002}"),
    ("epsilon", "\u{3b5}"),
    ("equals", "="),
    ("equiv", "\u{2261}"),
    ("eta", "\u{3b7}"),
    ("eth", "\u{f0}"),
    ("euml", "\u{eb}"),
    ("euro", "\u{20ac}"),
    ("excl", "!"),
    ("exist", "\u{2203}"),
    ("fnof", "\u{192}"),
    ("forall", "\u{2200}"),
    ("frac12", "\u{bd}"),
    ("frac14", "\u{bc}"),
    ("frac34", "\u{be}"),
    ("frasl", "\u{2044}"),
    ("gamma", "\u{3b3}"),
    ("ge", "\u{2265}"),
    ("grave", "`"),
    ("gt", ">"),
    ("hArr", "\u{21d4}"),
    ("half", "\u{bd}"),
    ("harr", "\u{2194}"),
    ("hearts", "\u{2665}"),
    ("hellip", "\u{2026}"),
    ("hyphen", "\u{2010}"),
    ("iacute", "\u{ed}"),
    ("icirc", "\u{ee}"),
    ("iexcl", "\u{a1}"),
    ("igrave", "\u{ec}"),
    ("image", "\u{2111}"),
    ("infin", "\u{221e}"),
    ("int", "\u{222b}"),
    ("iota", "\u{3b9}"),
    ("iquest", "\u{bf}"),
    ("isin", "\u{2208}"),
    ("iuml", "\u{ef}"),
    ("kappa", "\u{3ba}"),
    ("lArr", "\u{21d0}"),
    ("lambda", "\u{3bb}"),
    ("lang", "\u{27e8}"),
    ("laquo", "\u{ab}"),
    ("larr", "\u{2190}"),
    ("lceil", "\u{2308}"),
    ("lcub", "{"),
    ("ldquo", "\u{201c}"),
    ("le", "\u{2264}"),
    ("lfloor", "\u{230a}"),
    ("lowast", "\u{2217}"),
    ("lowbar", "_"),
    ("loz", "\u{25ca}"),
    ("lpar", "("),
    ("lrm", "\u{200e}"),
    ("lsaquo", "\u{2039}"),
    ("lsqb", "["),
    ("lsquo", "\u{2018}"),
    ("lt", "<"),
    ("macr", "\u{af}"),
    ("mdash", "\u{2014}"),
    ("micro", "\u{b5}"),
    ("middot", "\u{b7}"),
    ("minus", "\u{2212}"),
    ("mu", "\u{3bc}"),
    ("nabla", "\u{2207}"),
    ("nbsp", "\u{a0}"),
    ("ndash", "\u{2013}"),
    ("ne", "\u{2260}"),
    ("ni", "\u{220b}"),
    ("not", "\u{ac}"),
    ("notin", "\u{2209}"),
    ("nsub", "\u{2284}"),
    ("ntilde", "\u{f1}"),
    ("nu", "\u{3bd}"),
    ("num", "#"),
    ("oacute", "\u{f3}"),
    ("ocirc", "\u{f4}"),
    ("oelig", "\u{153}"),
    ("ograve", "\u{f2}"),
    ("oline", "\u{203e}"),
    ("omega", "\u{3c9}"),
    ("omicron", "\u{3bf}"),
    ("oplus", "\u{2295}"),
    ("or", "\u{2228}"),
    ("ordf", "\u{aa}"),
    ("ordm", "\u{ba}"),
    ("oslash", "\u{f8}"),
    ("otilde", "\u{f5}"),
    ("otimes", "\u{2297}"),
    ("ouml", "\u{f6}"),
    ("para", "\u{b6}"),
    ("part", "\u{2202}"),
    ("percnt", "%"),
    ("period", "."),
    ("permil", "\u{2030}"),
    ("perp", "\u{22a5}"),
    ("phi", "\u{3c6}"),
    ("pi", "\u{3c0}"),
    ("piv", "\u{3d6}"),
    ("plus", "+"),
    ("plusmn", "\u{b1}"),
    ("pound", "\u{a3}"),
    ("prime", "\u{2032}"),
    ("prod", "\u{220f}"),
    ("prop", "\u{221d}"),
    ("psi", "\u{3c8}"),
    ("quest", "?"),
    ("quot", "\u{22}"),
    ("rArr", "\u{21d2}"),
    ("radic", "\u{221a}"),
    ("rang", "\u{27e9}"),
    ("raquo", "\u{bb}"),
    ("rarr", "\u{2192}"),
    ("rceil", "\u{2309}"),
    ("rcub", "}"),
    ("rdquo", "\u{201d}"),
    ("real", "\u{211c}"),
    ("reg", "\u{ae}"),
    ("rfloor", "\u{230b}"),
    ("rho", "\u{3c1}"),
    ("rlm", "\u{200f}"),
    ("rpar", ")"),
    ("rsaquo", "\u{203a}"),
    ("rsqb", "]"),
    ("rsquo", "\u{2019}"),
    ("sbquo", "\u{201a}"),
    ("scaron", "\u{161}"),
    ("sdot", "\u{22c5}"),
    ("sect", "\u{a7}"),
    ("shy", "\u{ad}"),
    ("sigma", "\u{3c3}"),
    ("sigmaf", "\u{3c2}"),
    ("sim", "\u{223c}"),
    ("sol", "/"),
    ("spades", "\u{2660}"),
    ("star", "\u{2606}"),
    ("starf", "\u{2605}"),
    ("sub", "\u{2282}"),
    ("sube", "\u{2286}"),
    ("sum", "\u{2211}"),
    ("sup", "\u{2283}"),
    ("sup1", "\u{b9}"),
    ("sup2", "\u{b2}"),
    ("sup3", "\u{b3}"),
    ("supe", "\u{2287}"),
    ("szlig", "\u{df}"),
    ("tau", "\u{3c4}"),
    ("there4", "\u{2234}"),
    ("theta", "\u{3b8}"),
    ("thetasym", "\u{3d1}"),
    ("thinsp", "\u{2009}"),
    ("thorn", "\u{fe}"),
    ("tilde", "\u{2dc}"),
    ("times", "\u{d7}"),
    ("trade", "\u{2122}"),
    ("uArr", "\u{21d1}"),
    ("uacute", "\u{fa}"),
    ("uarr", "\u{2191}"),
    ("ucirc", "\u{fb}"),
    ("ugrave", "\u{f9}"),
    ("uml", "\u{a8}"),
    ("upsih", "\u{3d2}"),
    ("upsilon", "\u{3c5}"),
    ("uuml", "\u{fc}"),
    ("verbar", "|"),
    ("vert", "|"),
    ("weierp", "\u{2118}"),
    ("xi", "\u{3be}"),
    ("yacute", "\u{fd}"),
    ("yen", "\u{a5}"),
    ("yuml", "\u{ff}"),
    ("zeta", "\u{3b6}"),
    ("zwj", "\u{200d}"),
    ("zwnj", "\u{200c}"),
];
