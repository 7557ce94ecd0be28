//! Tool schemas as standard JSON Schema (draft 2020-12).
//!
//! schemars writes `format: "uint64"`, `"uint32"`, `"int64"`, `"double"`, … beside numeric
//! types. Those formats are schemars' own, not JSON Schema's: strict validators (AJV, in the
//! MCP Inspector) warn on each. The range they stand for is already said by `minimum` (and
//! the type), so they are dropped; formats the draft defines are kept.

use serde_json::Value;

/// The `format` values JSON Schema draft 2020-12 defines (Validation, §7.3).
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Removes from `schema`, at any depth, every format the draft does not define.
pub fn drop_custom_formats(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let custom = object
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| !STANDARD_FORMATS.contains(&f));
            // Only where `format` is a keyword (a string), not a property named "format".
            if custom {
                object.remove("format");
            }
            object.values_mut().for_each(drop_custom_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_custom_formats),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn custom_formats_go_and_standard_ones_and_properties_named_format_stay() {
        let schema = json!({
            "type": "object",
            "properties": {
                "page": {"type": "integer", "format": "uint32", "minimum": 0},
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "enum": ["markdown", "text"]},
                "sizes": {"type": "array", "items": {"type": "number", "format": "double"}}
            }
        });
        let mut out = schema;
        drop_custom_formats(&mut out);
        assert_eq!(
            out["properties"]["page"],
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(out["properties"]["when"]["format"], "date-time");
        assert_eq!(out["properties"]["format"]["enum"][1], "text");
        assert!(out["properties"]["sizes"]["items"].get("format").is_none());
    }
}
