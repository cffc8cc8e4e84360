//! The human form of `tessera dump ast`: an indented tree, one node per line,
//! with each node's source position as `line:col`.
//!
//! It walks the tree's serde form, so it follows the syntax tree's shape
//! without a printer per node type.

use serde_json::Value;
use tessera_diagnostics::{FileId, Sources};

/// Renders a serialisable tree.
pub fn render<T: serde::Serialize>(tree: &T, sources: &Sources) -> String {
    let mut out = String::new();
    match serde_json::to_value(tree) {
        Ok(value) => node(&mut out, sources, None, &value, 0),
        Err(err) => out.push_str(&format!("<cannot show the tree: {err}>\n")),
    }
    out
}

fn is_span(v: &Value) -> Option<(u32, u32, u32)> {
    let obj = v.as_object()?;
    if obj.len() != 3 {
        return None;
    }
    let get = |k: &str| obj.get(k).and_then(Value::as_u64).map(|n| n as u32);
    Some((get("file")?, get("start")?, get("end")?))
}

fn position(sources: &Sources, v: &Value) -> Option<String> {
    let span = v.as_object()?.get("span")?;
    let (file, start, _) = is_span(span)?;
    let (line, col) = sources.line_col(FileId(file), start);
    Some(format!("{line}:{col}"))
}

fn node(out: &mut String, sources: &Sources, key: Option<&str>, v: &Value, depth: usize) {
    let indent = "  ".repeat(depth);
    let label = key.map(|k| format!("{k}: ")).unwrap_or_default();
    match v {
        Value::Null => {}
        Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            out.push_str(&format!("{indent}{label}{v}\n"));
        }
        Value::Array(items) => {
            if items.is_empty() {
                return;
            }
            if items.iter().all(|i| !i.is_object() && !i.is_array()) {
                let parts: Vec<String> = items.iter().map(Value::to_string).collect();
                out.push_str(&format!("{indent}{label}[{}]\n", parts.join(", ")));
                return;
            }
            out.push_str(&format!("{indent}{label}\n"));
            for item in items {
                node(out, sources, None, item, depth + 1);
            }
        }
        Value::Object(map) => {
            if is_span(v).is_some() {
                return;
            }
            let at = position(sources, v).map(|p| format!(" @{p}")).unwrap_or_default();
            // Enum variants serialise as a one-key object: show the variant name.
            if map.len() == 1 {
                if let Some((name, inner)) = map.iter().next() {
                    if inner.is_object() || inner.is_array() {
                        out.push_str(&format!("{indent}{label}{name}{at}\n"));
                        descend(out, sources, inner, depth + 1);
                        return;
                    }
                }
            }
            out.push_str(&format!("{indent}{label}{}\n", at.trim_start()));
            for (k, child) in map {
                if k == "span" || k == "height" || is_default(child) {
                    continue;
                }
                node(out, sources, Some(k), child, depth + 1);
            }
        }
    }
}

fn descend(out: &mut String, sources: &Sources, inner: &Value, depth: usize) {
    match inner {
        Value::Object(map) if is_span(inner).is_none() => {
            for (k, child) in map {
                if k == "span" || k == "height" || is_default(child) {
                    continue;
                }
                node(out, sources, Some(k), child, depth);
            }
        }
        other => node(out, sources, None, other, depth),
    }
}

fn is_default(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false)) || v.as_array().is_some_and(Vec::is_empty)
}
