//! Issue 30 item 12: `tools/list` publishes standard JSON Schema, as a strict validator
//! (AJV in the MCP Inspector) reads it: each schema compiles under draft 2020-12 and names
//! no format the draft does not define.

use super::*;

/// The formats draft 2020-12 defines; AJV's strict mode refuses any other.
const DRAFT_2020_12_FORMATS: &[&str] = &[
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

/// Every `format` keyword in `schema` (a string value under the key, so a property that
/// is named "format" is not one), with its JSON pointer.
fn formats(schema: &Value, at: String, out: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(object) => {
            if let Some(Value::String(format)) = object.get("format") {
                out.push((at.clone(), format.clone()));
            }
            for (key, value) in object {
                formats(value, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                formats(value, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Compiles `schema` as draft 2020-12 (its own `$schema`, else that draft) and returns what
/// is wrong with it: a compile error or the formats the draft does not define.
fn problems(name: &str, schema: Value) -> Vec<String> {
    let mut found = Vec::new();
    formats(&schema, String::new(), &mut found);
    let mut problems: Vec<String> = found
        .into_iter()
        .filter(|(_, f)| !DRAFT_2020_12_FORMATS.contains(&f.as_str()))
        .map(|(at, f)| format!("{name}{at}: unknown format {f:?}"))
        .collect();
    let mut compiler = boon::Compiler::new();
    compiler.set_default_draft(boon::Draft::V2020_12);
    compiler.enable_format_assertions();
    let url = format!("urn:trawl:{name}");
    let mut schemas = boon::Schemas::new();
    let compiled = match compiler.add_resource(&url, schema) {
        Ok(()) => compiler.compile(&url, &mut schemas).map(|_| ()),
        Err(e) => Err(e),
    };
    if let Err(e) = compiled {
        problems.push(format!("{name}: {e:#}"));
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_schemas_are_standard_json_schema() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.len() >= 8, "{}", tools.len());
    let mut wrong = Vec::new();
    let mut unsigned_bounded = 0;
    for tool in &tools {
        let input = Value::Object(tool.input_schema.as_ref().clone());
        let output = Value::Object(tool.output_schema.as_deref().cloned().unwrap_or_default());
        // Unsigned numbers still say they cannot be negative, in the draft's own words.
        unsigned_bounded += input.to_string().matches("\"minimum\":0").count();
        wrong.extend(problems(&format!("{}.input", tool.name), input));
        wrong.extend(problems(&format!("{}.output", tool.name), output));
    }
    client.cancel().await.unwrap();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(unsigned_bounded > 0, "no unsigned argument says minimum 0");
    // The checker can fail: a schemars-style format is caught, and so is a broken schema.
    assert_eq!(
        problems(
            "probe",
            json!({"type": "object", "properties": {"n": {"type": "integer", "format": "uint64"}}})
        )
        .len(),
        1
    );
    assert_eq!(problems("probe", json!({"type": 7})).len(), 1);
}

/// Issue 42 item 19: every agent conversation pays for `tools/list`. What the model reads
/// (names, titles, descriptions, input schemas, annotations) stays within 12,000 bytes and
/// the whole list, output schemas included, within 24,000, as compact JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_fits_its_budget() {
    let world = World::new();
    let client = stdio_client(&world, &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    client.cancel().await.unwrap();
    let mut model_facing = 0;
    for tool in &tools {
        let mut shown = serde_json::to_value(tool).unwrap();
        shown.as_object_mut().unwrap().remove("outputSchema");
        model_facing += serde_json::to_string(&shown).unwrap().len();
    }
    let whole = serde_json::to_string(&json!({ "tools": tools }))
        .unwrap()
        .len();
    assert!(
        model_facing <= 12_000,
        "the model reads {model_facing} bytes"
    );
    assert!(whole <= 24_000, "tools/list is {whole} bytes");
    // Nothing a model needs went: every tool says what it is for, every property what
    // it is, and an enumeration still names its values.
    for tool in &tools {
        assert!(
            tool.description.as_deref().unwrap_or("").len() > 100,
            "{}",
            tool.name
        );
        let input = Value::Object(tool.input_schema.as_ref().clone());
        for (name, property) in input["properties"].as_object().unwrap() {
            assert!(property["description"].is_string(), "{}.{name}", tool.name);
        }
    }
    let search = tools.iter().find(|t| t.name == "web_search").unwrap();
    let input = Value::Object(search.input_schema.as_ref().clone());
    assert_eq!(
        input["$defs"]["Freshness"]["enum"],
        json!(["day", "week", "month", "year"])
    );
}
