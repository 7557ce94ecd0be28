//! The schemas `tools/list` publishes, made small: every agent conversation pays for the
//! list in tokens, so what the model reads (names, descriptions, input schemas) says each
//! thing once, and the output schemas keep only what a client validates against.
//!
//! Input schemas lose nothing a model uses: `null` among an optional property's types and
//! its `"default": null` (leaving a property out means the same), the `$schema` line, the
//! line breaks of doc comments, a bound said twice, and the prose of each value of an
//! enumeration whose names say it. Output schemas keep their structure, types, required
//! properties at the top and enumerations, and lose their prose (descriptions, titles,
//! defaults), which no validator reads, the zero floor of counts, and which properties of
//! nested objects are required.

use serde_json::{Map, Value};

/// An input schema as `tools/list` gives it to a model.
pub fn input(schema: &mut Value) {
    if let Value::Object(root) = schema {
        root.remove("$schema");
        // A definition is described where a property refers to it.
        if let Some(Value::Object(defs)) = root.get_mut("$defs") {
            for def in defs.values_mut().filter_map(Value::as_object_mut) {
                def.remove("description");
            }
        }
    }
    compact_input(schema);
    bounds_said_once(schema);
}

/// An output schema as `tools/list` gives it to a client.
pub fn output(schema: &mut Value) {
    let mut root_required = None;
    if let Value::Object(root) = schema {
        root.remove("$schema");
        root_required = root.remove("required");
    }
    strip_prose(schema);
    // Which nested fields are always there costs a quarter of the list and checks little:
    // the answer's own fields stay required, nested objects' are not said.
    if let (Value::Object(root), Some(required)) = (schema, root_required) {
        root.insert("required".into(), required);
    }
}

/// The keywords whose values are maps of names to schemas: their keys are names, not
/// keywords, and are kept as they are.
const NAMED_SCHEMAS: [&str; 3] = ["properties", "$defs", "patternProperties"];

fn compact_input(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::String(text)) = map.get_mut("description") {
                *text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            }
            unwrap_nullable_any_of(map);
            one_of_constants_as_enum(map);
            for (key, value) in map.iter_mut() {
                if NAMED_SCHEMAS.contains(&key.as_str()) {
                    if let Value::Object(named) = value {
                        named.values_mut().for_each(compact_input);
                    }
                } else {
                    compact_input(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(compact_input),
        _ => {}
    }
}

/// A bound said twice, in a property's description (`trawl_agent::tools::describe` puts it
/// there, for clients that show only descriptions) and in its keywords, is said once, in
/// words: a number's range beside its default (`1-50, default 10`), an array's size (`at
/// most 20 items`). A string's length (a URL of at most 4,096 characters) is a sanity limit
/// no agent plans around, and is not said at all. trawl checks every bound itself, and its
/// refusal names the bound.
fn bounds_said_once(schema: &mut Value) {
    use trawl_agent::tools::{Bound, CHECKED_KEYWORDS, Counted};
    let Some(Value::Object(properties)) = schema.get_mut("properties") else {
        return;
    };
    for property in properties.values_mut() {
        let Some(bound) = Bound::of(property) else {
            continue;
        };
        let words = bound.words();
        let Value::Object(map) = property else {
            continue;
        };
        let Some(Value::String(description)) = map.get_mut("description") else {
            continue;
        };
        if !description.contains(&words) {
            continue;
        }
        match bound.counted {
            Counted::Value => {}
            Counted::Chars => *description = without_words(description, &words),
            Counted::Items => {
                let size = Bound {
                    each: None,
                    ..bound.clone()
                }
                .words();
                *description = description.replacen(&words, &size, 1);
            }
        }
        for keyword in CHECKED_KEYWORDS {
            map.remove(keyword);
        }
        if let Some(Value::Object(items)) = map.get_mut("items") {
            for keyword in CHECKED_KEYWORDS {
                items.remove(keyword);
            }
        }
    }
}

/// `description` without `words` and the parenthesis or comma that held them.
fn without_words(description: &str, words: &str) -> String {
    for (held, by) in [
        (format!(" ({words})"), ""),
        (format!("({words}, "), "("),
        (format!(", {words})"), ")"),
    ] {
        if description.contains(&held) {
            return description.replacen(&held, by, 1);
        }
    }
    description.to_owned()
}

/// `anyOf: [X, {type: null}]` (schemars' optional reference) is `X`.
fn unwrap_nullable_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(alternatives)) = map.get("anyOf") else {
        return;
    };
    let is_null = |v: &Value| v.get("type") == Some(&Value::String("null".into()));
    if alternatives.len() != 2 || !alternatives.iter().any(is_null) {
        return;
    }
    let Some(Value::Object(kept)) = alternatives.iter().find(|v| !is_null(v)).cloned() else {
        return;
    };
    map.remove("anyOf");
    for (key, value) in kept {
        map.entry(key).or_insert(value);
    }
}

/// `oneOf: [{const: "day", type: string, description}, …]` (schemars' documented unit
/// enum) is `enum: ["day", …]`: the names say what each is.
fn one_of_constants_as_enum(map: &mut Map<String, Value>) {
    let Some(Value::Array(alternatives)) = map.get("oneOf") else {
        return;
    };
    let names: Option<Vec<Value>> = alternatives
        .iter()
        .map(|alt| match alt.get("const") {
            Some(name @ Value::String(_)) => Some(name.clone()),
            _ => None,
        })
        .collect();
    let Some(names) = names else {
        return;
    };
    map.remove("oneOf");
    map.insert("type".into(), "string".into());
    map.insert("enum".into(), Value::Array(names));
}

fn strip_prose(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for keyword in ["description", "title", "examples", "default", "required"] {
                map.remove(keyword);
            }
            one_of_constants_as_enum(map);
            // schemars' floor for unsigned integers: trawl never answers a negative count.
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            for (key, value) in map.iter_mut() {
                if NAMED_SCHEMAS.contains(&key.as_str()) {
                    if let Value::Object(named) = value {
                        named.values_mut().for_each(strip_prose);
                    }
                } else {
                    strip_prose(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_prose),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_inputs_lose_null_and_keep_their_meaning() {
        let mut schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "page": {"type": ["integer", "null"], "default": null, "minimum": 1,
                         "description": "Which page\nto return."},
                "title": {"anyOf": [{"$ref": "#/$defs/T"}, {"type": "null"}]},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}}
            },
            "required": ["url"]
        });
        input(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "page": {"type": "integer", "minimum": 1, "description": "Which page to return."},
                    "title": {"$ref": "#/$defs/T"},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["url"]
            })
        );
    }

    #[test]
    fn documented_constants_become_an_enum_and_definitions_lose_their_prose() {
        let mut schema = json!({
            "$defs": {"Freshness": {"description": "How recent.", "oneOf": [
                {"const": "day", "type": "string", "description": "The last 24 hours."},
                {"const": "week", "type": "string", "description": "The last 7 days."}
            ]}},
            "properties": {"freshness": {"$ref": "#/$defs/Freshness", "description": "Recent only."}}
        });
        input(&mut schema);
        assert_eq!(
            schema,
            json!({
                "$defs": {"Freshness": {"type": "string", "enum": ["day", "week"]}},
                "properties": {"freshness": {"$ref": "#/$defs/Freshness", "description": "Recent only."}}
            })
        );
    }

    #[test]
    fn a_bound_is_said_once() {
        let mut schema = json!({"properties": {
            "max_results": {"type": "integer", "minimum": 1, "maximum": 50,
                            "description": "How many (1-50, default 10)."},
            "page": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Result page."},
            "query": {"type": "string", "minLength": 1, "maxLength": 500,
                      "description": "Words (1-500 characters)."},
            "include": {"type": "array", "maxItems": 20,
                        "items": {"type": "string", "minLength": 1, "maxLength": 500},
                        "description": "Paths (at most 20 items, each 1-500 characters)."}
        }});
        input(&mut schema);
        assert_eq!(
            schema,
            json!({"properties": {
                "max_results": {"type": "integer", "description": "How many (1-50, default 10)."},
                "page": {"type": "integer", "minimum": 1, "maximum": 10, "description": "Result page."},
                "query": {"type": "string", "description": "Words."},
                "include": {"type": "array", "items": {"type": "string"},
                            "description": "Paths (at most 20 items)."}
            }})
        );
    }

    #[test]
    fn outputs_keep_structure_and_property_names_and_lose_prose() {
        let mut schema = json!({
            "description": "What web_fetch answers.",
            "properties": {
                "title": {"type": ["string", "null"], "description": "The page's title."},
                "description": {"type": "string", "enum": ["a", "b"]}
            },
            "required": ["title"]
        });
        output(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "title": {"type": ["string", "null"]},
                    "description": {"type": "string", "enum": ["a", "b"]}
                },
                "required": ["title"]
            })
        );
        let mut nested = json!({
            "properties": {"hits": {"type": "array", "items": {
                "type": "object", "required": ["url"], "default": [],
                "properties": {"url": {"type": "string"}, "count": {"type": "integer", "minimum": 0}}
            }}},
            "required": ["hits"]
        });
        output(&mut nested);
        assert_eq!(
            nested,
            json!({
                "properties": {"hits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"url": {"type": "string"}, "count": {"type": "integer"}}
                }}},
                "required": ["hits"]
            })
        );
    }
}
