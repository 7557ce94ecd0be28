//! Argument bounds, declared once: as `#[schemars(range(..))]` / `#[schemars(length(..))]` on
//! a tool's argument type. The JSON Schema generated from it is what MCP clients see, what
//! [`check`] enforces (for MCP, the CLI and library callers alike), and where the bound's words
//! in the property's description come from ([`describe`], a schemars transform). Doc comments
//! therefore never spell a bound out.
//!
//! The check reads only the keywords trawl's argument types use (`minimum`, `maximum`,
//! `minLength`, `maxLength`, `minItems`, `maxItems`, on a top-level property or on the items of
//! an array property); a test walks every tool's schema and fails on any other validation
//! keyword, so a bound the check would ignore cannot be declared. A full JSON Schema validator
//! (the `jsonschema` crate) would also do it, but it turns on serde_json's `float_roundtrip`
//! for the whole binary and brings some fifteen crates for these six keywords, and its
//! messages would still need rewriting into trawl's `field: must be …` form.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use trawl_core::TrawlError;

/// A tool's argument type: what MCP deserializes a call into and the agent checks.
pub trait ToolArgs: DeserializeOwned + Serialize + JsonSchema + Send + 'static {
    /// The arguments as the tool uses them: text trimmed, empty optional text dropped. The
    /// bounds apply to this, so `"route": ""` means "no route" rather than a refusal.
    fn normalized(self) -> Self {
        self
    }
}

/// What a bound counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The number itself.
    Value,
    /// Characters (Unicode scalar values) of a string.
    Chars,
    /// Items of an array.
    Items,
}

/// The bounds of one property (or of each item of an array property).
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// What is counted.
    pub counted: Counted,
    /// The least allowed, when there is one.
    pub min: Option<f64>,
    /// The most allowed, when there is one.
    pub max: Option<f64>,
    /// For arrays: the bound on each item.
    pub each: Option<Box<Bound>>,
}

/// The schema keywords [`check`] enforces.
pub const CHECKED_KEYWORDS: [&str; 6] = [
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
];

fn number(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

/// A bound of `counted` read from `min_key`/`max_key`, when either is there.
fn read(map: &Map<String, Value>, counted: Counted, keys: [&str; 2]) -> Option<Bound> {
    let (min, max) = (number(map, keys[0]), number(map, keys[1]));
    (min.is_some() || max.is_some()).then_some(Bound {
        counted,
        min,
        max,
        each: None,
    })
}

impl Bound {
    /// The bound a property schema declares, if any.
    pub fn of(property: &Value) -> Option<Bound> {
        let map = property.as_object()?;
        if let Some(bound) = read(map, Counted::Value, ["minimum", "maximum"]) {
            return Some(bound);
        }
        if let Some(bound) = read(map, Counted::Chars, ["minLength", "maxLength"]) {
            return Some(bound);
        }
        let each = map
            .get("items")
            .and_then(Value::as_object)
            .and_then(|items| read(items, Counted::Chars, ["minLength", "maxLength"]))
            .map(Box::new);
        match read(map, Counted::Items, ["minItems", "maxItems"]) {
            Some(bound) => Some(Bound { each, ..bound }),
            None => each.map(|each| Bound {
                counted: Counted::Items,
                min: None,
                max: None,
                each: Some(each),
            }),
        }
    }

    /// Whether an unsigned integer's implicit `minimum: 0` is all there is (not worth saying).
    fn says_nothing(&self) -> bool {
        self.counted == Counted::Value && self.min == Some(0.0) && self.max.is_none()
    }

    /// The range in words: `1-50`, `from 1`, `1-500 characters`, `at most 4 items, each
    /// 1-500 characters`.
    pub fn words(&self) -> String {
        let unit = match self.counted {
            Counted::Value => "",
            Counted::Chars => " characters",
            Counted::Items => " items",
        };
        let span = match (self.min, self.max) {
            (Some(min), Some(max)) => Some(format!("{min}-{max}{unit}")),
            (Some(min), None) if self.counted == Counted::Value => Some(format!("from {min}")),
            (Some(min), None) => Some(format!("at least {min}{unit}")),
            (None, Some(max)) => Some(format!("at most {max}{unit}")),
            (None, None) => None,
        };
        let each = self.each.as_ref().map(|e| format!("each {}", e.words()));
        [span, each]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn holds(&self, n: f64) -> bool {
        self.min.is_none_or(|min| n >= min) && self.max.is_none_or(|max| n <= max)
    }

    /// Why `value` breaks the bound, if it does; `field` names it in the message.
    fn refusal(&self, field: &str, value: &Value) -> Option<TrawlError> {
        let counted = match (self.counted, value) {
            (Counted::Value, Value::Number(n)) => n.as_f64(),
            (Counted::Chars, Value::String(s)) => Some(s.chars().count() as f64),
            (Counted::Items, Value::Array(items)) => Some(items.len() as f64),
            // Absent, or a type serde has already refused.
            _ => None,
        };
        if let Some(n) = counted
            && !self.holds(n)
        {
            let verb = if self.counted == Counted::Items {
                "have"
            } else {
                "be"
            };
            let span = Bound {
                each: None,
                ..self.clone()
            };
            let span = match (self.counted, span.min, span.max) {
                (Counted::Value, Some(min), None) => format!("at least {min}"),
                _ => span.words(),
            };
            return Some(TrawlError::invalid_input(format!(
                "{field}: must {verb} {span}"
            )));
        }
        if let (Some(each), Value::Array(items)) = (&self.each, value) {
            for (i, item) in items.iter().enumerate() {
                if let Some(err) = each.refusal(&format!("{field}[{i}]"), item) {
                    return Some(err);
                }
            }
        }
        None
    }
}

/// The bounded properties of a root schema, by name.
fn bounds_of(schema: &Schema) -> Vec<(String, Bound)> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .filter_map(|(name, property)| Bound::of(property).map(|b| (name.clone(), b)))
        .collect()
}

/// The JSON Schema of a tool's arguments, as MCP publishes it (draft 2020-12, what the type
/// accepts).
pub fn input_schema<A: JsonSchema>() -> Schema {
    let mut value = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<A>()
        .to_value();
    // Standard JSON Schema, as `tools/list` publishes it (see `drop_custom_formats`).
    super::drop_custom_formats(&mut value);
    Schema::try_from(value).expect("a root schema stays an object")
}

type Bounds = Arc<Vec<(String, Bound)>>;

/// Each argument type's bounds, read from its schema once.
fn cached_bounds<A: JsonSchema + 'static>() -> Bounds {
    static CACHE: LazyLock<Mutex<HashMap<TypeId, Bounds>>> = LazyLock::new(Mutex::default);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    cache
        .entry(TypeId::of::<A>())
        .or_insert_with(|| Arc::new(bounds_of(&input_schema::<A>())))
        .clone()
}

/// Refuses `args` when a property breaks a bound of its schema, naming the property.
pub fn check<A: Serialize + JsonSchema + 'static>(args: &A) -> Result<(), TrawlError> {
    let value = serde_json::to_value(args)
        .map_err(|e| TrawlError::internal(format!("cannot serialize the arguments: {e}")))?;
    check_value(&cached_bounds::<A>(), &value)
}

fn check_value(bounds: &[(String, Bound)], value: &Value) -> Result<(), TrawlError> {
    for (name, bound) in bounds {
        if let Some(v) = value.get(name)
            && let Some(err) = bound.refusal(name, v)
        {
            return Err(err);
        }
    }
    Ok(())
}

/// The arguments normalized, then checked against their bounds: what every tool runs on.
pub fn checked<A: ToolArgs>(args: A) -> Result<A, TrawlError> {
    let args = args.normalized();
    check(&args)?;
    Ok(args)
}

/// A schemars transform for argument types (`#[schemars(transform = describe)]`): each
/// bounded property's description gets its bound in words, inside a closing parenthesis when
/// it has one (`How many (default 10).` becomes `How many (1-50, default 10).`) or in a new one.
pub fn describe(schema: &mut Schema) {
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        let Some(bound) = Bound::of(property).filter(|b| !b.says_nothing()) else {
            continue;
        };
        let Some(map) = property.as_object_mut() else {
            continue;
        };
        let doc = map
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let described = with_bound(doc, &bound.words());
        map.insert("description".into(), Value::String(described));
    }
}

fn with_bound(doc: &str, words: &str) -> String {
    if let Some(head) = doc.strip_suffix(").")
        && let Some(open) = head.rfind('(')
    {
        return format!("{}({words}, {}).", &head[..open], &head[open + 1..]);
    }
    match doc.strip_suffix('.') {
        Some(head) => format!("{head} ({words})."),
        None if doc.is_empty() => format!("{words}."),
        None => format!("{doc} ({words})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_go_into_the_closing_parenthesis_or_a_new_one() {
        assert_eq!(
            with_bound("How many hits to return (default 10).", "1-50"),
            "How many hits to return (1-50, default 10)."
        );
        assert_eq!(
            with_bound("What to search for.", "1-500 characters"),
            "What to search for (1-500 characters)."
        );
        assert_eq!(with_bound("Page", "from 1"), "Page (from 1)");
    }

    #[test]
    fn words_and_refusals_name_the_range() {
        let items = Bound::of(&json!({"maxItems": 4, "items": {"minLength": 1, "maxLength": 500}}))
            .unwrap();
        assert_eq!(items.words(), "at most 4 items, each 1-500 characters");
        let err = items.refusal("expand", &json!(["a", ""])).unwrap();
        assert_eq!(err.message, "expand[1]: must be 1-500 characters");
        let err = items.refusal("expand", &json!(vec!["a"; 5])).unwrap();
        assert_eq!(err.message, "expand: must have at most 4 items");
        let page = Bound::of(&json!({"minimum": 1})).unwrap();
        assert_eq!(page.words(), "from 1");
        assert_eq!(
            page.refusal("page", &json!(0)).unwrap().message,
            "page: must be at least 1"
        );
        let n = Bound::of(&json!({"minimum": 1, "maximum": 50})).unwrap();
        assert_eq!(
            n.refusal("max_results", &json!(51)).unwrap().message,
            "max_results: must be 1-50"
        );
        assert!(n.refusal("max_results", &Value::Null).is_none());
        assert!(n.refusal("max_results", &json!(50)).is_none());
    }
}
