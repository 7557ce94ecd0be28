//! FTS5's `porter unicode61` tokenizer, faster on the text a store indexes and giving
//! exactly its tokens.
//!
//! Tokenizing and stemming each passage took about 6 % of a crawl's CPU (the
//! built-in tokenizer decodes every byte as UTF-8, then stems every word afresh). Most of
//! what trawl indexes is ASCII, and a page repeats its words. So, for a document's text:
//!
//! - runs of ASCII letters and digits (unicode61's only ASCII token characters) are
//!   lowercased here, and each word's stem is looked up in a memo of fixed size (one
//!   for the process: stems do not depend on the store), filled by asking the built-in
//!   stemmer for the words it misses;
//! - a run that holds any non-ASCII byte, from one ASCII separator to the next, is handed
//!   to the built-in tokenizer whole (an ASCII separator always ends a token, so the run
//!   is tokenized as it would be in place), its offsets shifted back;
//! - a query, a tokenizer with other arguments, or text with a locale goes to the
//!   built-in one, all of it.
//!
//! It is registered under the built-in's own name, `porter`, on the connections that
//! write: the index's declaration (`tokenize='porter unicode61'`) stays what it was, so
//! a store stays readable and writable by any SQLite, and connections that only read
//! tokenize their queries with the built-in. The tests compare the two tokenizers'
//! output token by token.
//!
//! Hand-written because no crate wraps FTS5's tokenizer API; it is the module of this
//! crate that uses `unsafe` (the C API: raw pointers and callbacks).
#![allow(
    unsafe_code,
    reason = "FTS5's tokenizer API is C: raw pointers and callbacks"
)]

use std::ffi::{c_char, c_int, c_void};
use std::ptr;
use std::sync::{Mutex, TryLockError};

use rusqlite::Connection;
use rusqlite::ffi;
use trawl_core::swar;

use crate::{Error, Result};

/// Slots of the memo of stems: one word each, found by its hash (direct-mapped: a word
/// takes the slot of the one it collides with). 4,096 slots of 64 bytes, 256 KiB.
const MEMO_SLOTS: usize = 4096;

/// The longest word the memo keeps (longer ones, rare, are stemmed each time).
const MEMO_WORD: usize = 32;

/// Words the built-in porter stems: shorter or longer pass through as they are.
const STEMMED_LEN: std::ops::RangeInclusive<usize> = 3..=64;

/// The callback FTS5 gives a tokenizer for each token.
type TokenCallback = unsafe extern "C" fn(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    len: c_int,
    start: c_int,
    end: c_int,
) -> c_int;

/// FTS5's `xTokenize` (version 2).
type TokenizeFn = unsafe extern "C" fn(
    tokenizer: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    len: c_int,
    locale: *const c_char,
    locale_len: c_int,
    token: Option<TokenCallback>,
) -> c_int;

/// Replaces `porter` on `conn` with this module's. Connections that only read keep the
/// built-in (see the module's docs).
pub(super) fn register(conn: &Connection) -> Result<()> {
    // SAFETY: the handle is `conn`'s, open for the whole call; the module's data lives
    // until SQLite calls `drop_module` when the connection closes.
    unsafe {
        let db = conn.handle();
        let api = fts5_api(db)?;
        let builtin = find_tokenizer(api, c"porter")?;
        let module = Box::into_raw(Box::new(builtin));
        let mut methods = ffi::fts5_tokenizer_v2 {
            iVersion: 2,
            xCreate: Some(create),
            xDelete: Some(delete),
            xTokenize: Some(tokenize),
        };
        let create_tokenizer = (*api)
            .xCreateTokenizer_v2
            .ok_or_else(|| sqlite_error(ffi::SQLITE_MISUSE, "finding FTS5's tokenizer API (v2)"))?;
        let rc = create_tokenizer(
            api,
            c"porter".as_ptr(),
            module.cast(),
            &mut methods,
            Some(drop_module),
        );
        if rc != ffi::SQLITE_OK {
            drop(Box::from_raw(module));
            return Err(sqlite_error(rc, "registering the porter tokenizer"));
        }
    }
    Ok(())
}

/// A tokenizer module found by name: its methods and the data its `xCreate` takes.
#[derive(Clone, Copy)]
struct Builtin {
    methods: ffi::fts5_tokenizer_v2,
    data: *mut c_void,
}

/// FTS5's API object of the connection `db` (`SELECT fts5(?)`, its documented way).
unsafe fn fts5_api(db: *mut ffi::sqlite3) -> Result<*mut ffi::fts5_api> {
    let mut api: *mut ffi::fts5_api = ptr::null_mut();
    let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
    // SAFETY: `db` is open; the statement is finalized before `api`'s slot goes.
    unsafe {
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(sqlite_error(rc, "asking for FTS5's API"));
        }
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        let rc = ffi::sqlite3_finalize(stmt);
        if rc != ffi::SQLITE_OK || api.is_null() || (*api).iVersion < 3 {
            return Err(sqlite_error(
                rc,
                "asking for FTS5's API (version 3 or later)",
            ));
        }
    }
    Ok(api)
}

/// The tokenizer module `name` as `api` has it now.
unsafe fn find_tokenizer(api: *mut ffi::fts5_api, name: &std::ffi::CStr) -> Result<Builtin> {
    let mut data: *mut c_void = ptr::null_mut();
    let mut methods: *mut ffi::fts5_tokenizer_v2 = ptr::null_mut();
    // SAFETY: `api` is the connection's; FTS5 fills both slots or returns an error.
    unsafe {
        let find = (*api)
            .xFindTokenizer_v2
            .ok_or_else(|| sqlite_error(ffi::SQLITE_MISUSE, "finding FTS5's tokenizer API (v2)"))?;
        let rc = find(api, name.as_ptr(), &mut data, &mut methods);
        if rc != ffi::SQLITE_OK || methods.is_null() {
            return Err(sqlite_error(rc, "finding FTS5's porter tokenizer"));
        }
        Ok(Builtin {
            methods: *methods,
            data,
        })
    }
}

fn sqlite_error(rc: c_int, doing: &str) -> Error {
    // A statement that failed to finalize reports its code; one that ran but left no API
    // behind reports none, so it is named an error all the same.
    let rc = if rc == ffi::SQLITE_OK {
        ffi::SQLITE_ERROR
    } else {
        rc
    };
    Error::from(rusqlite::Error::SqliteFailure(
        ffi::Error::new(rc),
        Some(format!("{doing} failed")),
    ))
}

unsafe extern "C" fn drop_module(data: *mut c_void) {
    // SAFETY: `data` is the box `register` leaked, handed back once.
    drop(unsafe { Box::from_raw(data.cast::<Builtin>()) });
}

/// One tokenizer: the built-in's instance made with the same arguments, and its methods.
struct Tokenizer {
    builtin_tokenize: TokenizeFn,
    builtin_delete: unsafe extern "C" fn(*mut ffi::Fts5Tokenizer),
    instance: *mut ffi::Fts5Tokenizer,
    /// Made as `porter unicode61` (or `porter` alone): documents take the fast path.
    fast: bool,
    /// A lowercased word that passes through unstemmed.
    unstemmed: Vec<u8>,
}

unsafe extern "C" fn create(
    data: *mut c_void,
    args: *mut *const c_char,
    count: c_int,
    out: *mut *mut ffi::Fts5Tokenizer,
) -> c_int {
    // SAFETY: `data` is the module's `Builtin`; `args` holds `count` C strings.
    unsafe {
        let module = &*data.cast::<Builtin>();
        let (Some(builtin_create), Some(builtin_tokenize), Some(builtin_delete)) = (
            module.methods.xCreate,
            module.methods.xTokenize,
            module.methods.xDelete,
        ) else {
            return ffi::SQLITE_ERROR;
        };
        let mut instance = ptr::null_mut();
        let rc = builtin_create(module.data, args, count, &mut instance);
        if rc != ffi::SQLITE_OK {
            return rc;
        }
        let args: Vec<&[u8]> = (0..count.max(0) as usize)
            .map(|i| std::ffi::CStr::from_ptr(*args.add(i)).to_bytes())
            .collect();
        let tokenizer = Tokenizer {
            builtin_tokenize,
            builtin_delete,
            instance,
            fast: is_porter_unicode61(&args),
            unstemmed: Vec::new(),
        };
        *out = Box::into_raw(Box::new(tokenizer)).cast();
    }
    ffi::SQLITE_OK
}

/// Whether porter's arguments make it `porter unicode61` with unicode61's defaults: any
/// leading `porter`s, then `unicode61` alone or nothing (porter's default parent).
fn is_porter_unicode61(args: &[&[u8]]) -> bool {
    let rest: Vec<&&[u8]> = args
        .iter()
        .skip_while(|a| a.eq_ignore_ascii_case(b"porter"))
        .collect();
    match rest.as_slice() {
        [] => true,
        [only] => only.eq_ignore_ascii_case(b"unicode61"),
        _ => false,
    }
}

unsafe extern "C" fn delete(tokenizer: *mut ffi::Fts5Tokenizer) {
    if tokenizer.is_null() {
        return;
    }
    // SAFETY: made by `create`, handed back once.
    unsafe {
        let tokenizer = Box::from_raw(tokenizer.cast::<Tokenizer>());
        (tokenizer.builtin_delete)(tokenizer.instance);
    }
}

#[allow(
    clippy::too_many_arguments,
    reason = "FTS5's xTokenize, as its C API has it"
)]
unsafe extern "C" fn tokenize(
    tokenizer: *mut ffi::Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
    text: *const c_char,
    len: c_int,
    locale: *const c_char,
    locale_len: c_int,
    token: Option<TokenCallback>,
) -> c_int {
    // SAFETY: `tokenizer` was made by `create`; FTS5 calls it from one thread at a time
    // (a connection's); `text` holds `len` bytes.
    unsafe {
        let this = &mut *tokenizer.cast::<Tokenizer>();
        let Some(token) = token else {
            return ffi::SQLITE_ERROR;
        };
        if !this.fast || flags != ffi::FTS5_TOKENIZE_DOCUMENT || locale_len > 0 || len <= 0 {
            return (this.builtin_tokenize)(
                this.instance,
                ctx,
                flags,
                text,
                len,
                locale,
                locale_len,
                Some(token),
            );
        }
        let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len as usize);
        let rc = this.document(bytes, ctx, token);
        if rc == ffi::SQLITE_DONE {
            ffi::SQLITE_OK
        } else {
            rc
        }
    }
}

/// The bytes unicode61 (default arguments) separates tokens with, in a word of eight
/// (a `swar` mask): ASCII but for letters and digits, its only ASCII token characters.
/// Bytes past ASCII are UTF-8 it decodes.
fn separator_bytes(word: u64) -> u64 {
    !(swar::ascii_alphanumeric(word) | word) & swar::HIGH
}

/// The bytes that are not separators.
fn token_bytes(word: u64) -> u64 {
    !separator_bytes(word) & swar::HIGH
}

/// The first byte of `text` from `at` on in the class `mask` gives, or the end: eight
/// bytes a step (the release build vectorizes no loop; see `trawl_core::swar`).
fn find(text: &[u8], mut at: usize, mask: fn(u64) -> u64) -> usize {
    while at < text.len() {
        let (word, valid) = lane(&text[at..]);
        if let Some(byte) = lowest(mask(word) & valid) {
            return at + byte;
        }
        at += 8;
    }
    text.len()
}

/// The first eight bytes of `rest` (not empty) as a word, and the mask of its bytes that
/// are `rest`'s: a tail shorter than eight is made up with zeros, which the mask leaves
/// out.
fn lane(rest: &[u8]) -> (u64, u64) {
    match rest.first_chunk::<8>() {
        Some(eight) => (u64::from_le_bytes(*eight), u64::MAX),
        None => {
            let mut padded = [0u8; 8];
            padded[..rest.len()].copy_from_slice(rest);
            (
                u64::from_le_bytes(padded),
                u64::MAX >> (64 - 8 * rest.len()),
            )
        }
    }
}

/// The end of the run of token bytes from `at` (the next separator, or the end of `text`)
/// and whether the run is all ASCII, found in the same pass eight bytes a step: std's
/// `is_ascii` reads a slice as short as most words a byte at a time (a tenth of this
/// tokenizer's time when the run was checked after it was found).
fn run_end(text: &[u8], mut at: usize) -> (usize, bool) {
    let mut high = 0u64;
    while at < text.len() {
        let (word, valid) = lane(&text[at..]);
        if let Some(byte) = lowest(separator_bytes(word) & valid) {
            // The bytes before the separator: `byte` is below eight.
            high |= word & ((1u64 << (8 * byte)) - 1) & swar::HIGH;
            return (at + byte, high == 0);
        }
        high |= word & valid & swar::HIGH;
        at += 8;
    }
    (text.len(), high == 0)
}

/// The place of the lowest byte a mask marks, if any.
fn lowest(mask: u64) -> Option<usize> {
    (mask != 0).then(|| (mask.trailing_zeros() / 8) as usize)
}

impl Tokenizer {
    /// Tokenizes a document's `text` (see the module's docs), calling `token` for each.
    unsafe fn document(&mut self, text: &[u8], ctx: *mut c_void, token: TokenCallback) -> c_int {
        // Taken once a document (a store's writers take turns anyway); held by another
        // store's writer, the document goes to the built-in rather than wait.
        let mut memo = match MEMO.try_lock() {
            Ok(memo) => memo,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                // SAFETY: as below.
                return unsafe { self.builtin_run(text, 0..text.len(), ctx, token) };
            }
        };
        if memo.is_empty() {
            memo.resize(MEMO_SLOTS, Slot::EMPTY);
        }
        let mut at = find(text, 0, token_bytes);
        while at < text.len() {
            let start = at;
            let ascii;
            (at, ascii) = run_end(text, at);
            // SAFETY: `ctx` and `token` are FTS5's for this call.
            let rc = unsafe {
                if ascii {
                    self.word(&mut memo, text, start..at, ctx, token)
                } else {
                    self.builtin_run(text, start..at, ctx, token)
                }
            };
            if rc != ffi::SQLITE_OK {
                return rc;
            }
            at = find(text, at, token_bytes);
        }
        ffi::SQLITE_OK
    }

    /// One run of ASCII letters and digits, `text[range]`: lowercased, stemmed as
    /// porter would, and given to FTS5.
    unsafe fn word(
        &mut self,
        memo: &mut [Slot],
        text: &[u8],
        range: std::ops::Range<usize>,
        ctx: *mut c_void,
        token: TokenCallback,
    ) -> c_int {
        let (from, to) = (range.start as c_int, range.end as c_int);
        let len = range.len();
        if len > MEMO_WORD {
            if len <= *STEMMED_LEN.end() {
                // SAFETY: as below; the built-in stems a word it is given alone as in place.
                return unsafe { self.builtin_run(text, range, ctx, token) };
            }
            self.unstemmed.clear();
            self.unstemmed
                .extend(text[range].iter().map(u8::to_ascii_lowercase));
            // SAFETY: FTS5's callback, with a buffer it only reads during the call.
            return unsafe {
                token(
                    ctx,
                    0,
                    self.unstemmed.as_ptr().cast(),
                    len as c_int,
                    from,
                    to,
                )
            };
        }
        let key = key_of(text, range.clone());
        if len < *STEMMED_LEN.start() {
            let lower = lanes_bytes(&key);
            // SAFETY: as above.
            return unsafe { token(ctx, 0, lower.as_ptr().cast(), len as c_int, from, to) };
        }
        let slot = &mut memo[slot_of(&key)];
        if slot.word != key {
            // SAFETY: the built-in instance is this tokenizer's.
            match unsafe { self.builtin_stem(&lanes_bytes(&key)[..len]) } {
                Some(stem) if stem.len() <= slot.stem.len() => {
                    slot.word = key;
                    slot.stem[..stem.len()].copy_from_slice(&stem);
                    slot.stem_len = stem.len() as u8;
                }
                // SAFETY: as above.
                _ => return unsafe { self.builtin_run(text, range, ctx, token) },
            }
        }
        let stem = &slot.stem[..slot.stem_len as usize];
        // SAFETY: as above.
        unsafe { token(ctx, 0, stem.as_ptr().cast(), stem.len() as c_int, from, to) }
    }

    /// The built-in porter's one token for the lowercased ASCII word `lower`.
    unsafe fn builtin_stem(&mut self, lower: &[u8]) -> Option<Vec<u8>> {
        let mut got = Captured::default();
        // SAFETY: `got` outlives the call.
        let rc =
            unsafe { self.builtin_document(lower, (&mut got as *mut Captured).cast(), capture) };
        // A word of letters and digits is one token to unicode61; anything else would
        // mean the built-in changed, and the memo must not guess.
        (rc == ffi::SQLITE_OK && got.tokens == 1).then_some(got.stem)
    }

    /// The run `range` of `text`, holding non-ASCII bytes, tokenized by the built-in,
    /// its offsets shifted back to `text`'s.
    unsafe fn builtin_run(
        &mut self,
        text: &[u8],
        range: std::ops::Range<usize>,
        ctx: *mut c_void,
        token: TokenCallback,
    ) -> c_int {
        let mut shift = Shifted {
            ctx,
            token,
            by: range.start as c_int,
            rc: ffi::SQLITE_OK,
        };
        // SAFETY: `shift` outlives the call.
        let rc = unsafe {
            self.builtin_document(&text[range], (&mut shift as *mut Shifted).cast(), shifted)
        };
        // The built-in turns a callback's SQLITE_DONE (stop) into OK: the stop must still
        // reach the runs after this one.
        if shift.rc != ffi::SQLITE_OK {
            shift.rc
        } else {
            rc
        }
    }

    /// `run` tokenized by the built-in as a document, each token to `callback` with `ctx`.
    unsafe fn builtin_document(
        &mut self,
        run: &[u8],
        ctx: *mut c_void,
        callback: TokenCallback,
    ) -> c_int {
        // SAFETY: the instance is the built-in's, made for this tokenizer; `ctx` is what
        // `callback` expects, alive for the call (the callers').
        unsafe {
            (self.builtin_tokenize)(
                self.instance,
                ctx,
                ffi::FTS5_TOKENIZE_DOCUMENT,
                run.as_ptr().cast(),
                run.len() as c_int,
                ptr::null(),
                0,
                Some(callback),
            )
        }
    }
}

/// FTS5's callback and the offset of the run handed to the built-in.
struct Shifted {
    ctx: *mut c_void,
    token: TokenCallback,
    by: c_int,
    /// The first code the callback returned other than OK.
    rc: c_int,
}

unsafe extern "C" fn shifted(
    ctx: *mut c_void,
    tflags: c_int,
    token: *const c_char,
    len: c_int,
    start: c_int,
    end: c_int,
) -> c_int {
    // SAFETY: `ctx` is `builtin_run`'s `Shifted`.
    unsafe {
        let shift = &mut *ctx.cast::<Shifted>();
        let rc = (shift.token)(
            shift.ctx,
            tflags,
            token,
            len,
            start + shift.by,
            end + shift.by,
        );
        if rc != ffi::SQLITE_OK && shift.rc == ffi::SQLITE_OK {
            shift.rc = rc;
        }
        rc
    }
}

/// What the built-in gave for one word.
#[derive(Default)]
struct Captured {
    stem: Vec<u8>,
    tokens: u32,
}

unsafe extern "C" fn capture(
    ctx: *mut c_void,
    _tflags: c_int,
    token: *const c_char,
    len: c_int,
    _start: c_int,
    _end: c_int,
) -> c_int {
    // SAFETY: `ctx` is `builtin_stem`'s `Captured`; `token` holds `len` bytes.
    unsafe {
        let got = &mut *ctx.cast::<Captured>();
        got.tokens += 1;
        got.stem.clear();
        got.stem.extend_from_slice(std::slice::from_raw_parts(
            token.cast::<u8>(),
            len.max(0) as usize,
        ));
    }
    ffi::SQLITE_OK
}

/// The memo of stems (see [`MEMO_SLOTS`]), allocated at the first document.
static MEMO: Mutex<Vec<Slot>> = Mutex::new(Vec::new());

/// One word of the memo and its stem, a cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot {
    /// The lowercased word as [`key_of`] gives it; all zero: empty.
    word: [u64; 4],
    stem: [u8; 31],
    stem_len: u8,
}

impl Slot {
    const EMPTY: Slot = Slot {
        word: [0; 4],
        stem: [0; 31],
        stem_len: 0,
    };
}

/// The ASCII letters and digits `text[range]` (at most [`MEMO_WORD`] bytes), lowercased,
/// as four little-endian 8-byte lanes, zero past the word: a word has no zero byte, so
/// the lanes are the word. Built in registers (a word written a byte at a time and read
/// back in lanes stalls on store forwarding): read in lanes, from the text itself where
/// 32 bytes remain; OR 0x20 lowercases a letter and leaves a digit as it is.
fn key_of(text: &[u8], range: std::ops::Range<usize>) -> [u64; 4] {
    let len = range.len();
    let mut padded = [0u8; MEMO_WORD];
    let window = match text.get(range.start..range.start + MEMO_WORD) {
        Some(window) => window,
        None => {
            padded[..len].copy_from_slice(&text[range]);
            &padded
        }
    };
    let mut key = [0u64; 4];
    for (i, lane) in key.iter_mut().enumerate() {
        let bytes: [u8; 8] = window[i * 8..i * 8 + 8].try_into().unwrap_or_default();
        let kept = len.saturating_sub(i * 8).min(8);
        let mask = if kept == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * kept)) - 1
        };
        *lane = (u64::from_le_bytes(bytes) | 0x2020_2020_2020_2020) & mask;
    }
    key
}

/// The lanes of a key as bytes.
fn lanes_bytes(key: &[u64; 4]) -> [u8; MEMO_WORD] {
    let mut bytes = [0u8; MEMO_WORD];
    for (i, lane) in key.iter().enumerate() {
        bytes[i * 8..i * 8 + 8].copy_from_slice(&lane.to_le_bytes());
    }
    bytes
}

/// The slot of a key: its lanes mixed, multiplied, the top bits.
fn slot_of(key: &[u64; 4]) -> usize {
    let mixed = key[0] ^ key[1].rotate_left(17) ^ key[2].rotate_left(31) ^ key[3].rotate_left(47);
    (mixed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - MEMO_SLOTS.trailing_zeros())) as usize
}

#[cfg(test)]
#[path = "porter_tests.rs"]
mod tests;
