//! Values as the REPL shows them: scalars as `std::cout` prints them, bools
//! as `true`/`false`, aggregates in braces with their field names, views and
//! vectors as lists, rank-2 views and arrays as grids (long ones elided with
//! `...`), and a `tiled_extent` as a map of which tile each cell belongs to.

use crate::arith;
use crate::machine::Machine;
use crate::value::{Value, View};
use std::rc::Rc;
use tessera_ir::{Scalar, TileShape, Type};
use tessera_runtime::format::{ScalarValue, StreamFormat};

/// The most rows, columns or list elements shown before eliding.
const SHOWN: usize = 12;

fn tuple(dims: &[i64]) -> String {
    let parts: Vec<String> = dims.iter().map(i64::to_string).collect();
    format!("({})", parts.join(","))
}

/// Which of `n` positions to show: all, or the first ones and the last, with
/// `None` for the gap.
fn picks(n: usize) -> Vec<Option<usize>> {
    if n <= SHOWN {
        return (0..n).map(Some).collect();
    }
    let mut v: Vec<Option<usize>> = (0..SHOWN - 2).map(Some).collect();
    v.push(None);
    v.push(Some(n - 1));
    v
}

/// Right-aligned columns.
fn grid(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for row in rows {
        for (c, cell) in row.iter().enumerate() {
            widths[c] = widths[c].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for (r, row) in rows.iter().enumerate() {
        if r > 0 {
            out.push('\n');
        }
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| format!("{cell:>w$}", w = widths[c]))
            .collect();
        out.push_str(cells.join(" ").trim_end());
    }
    out
}

impl Machine<'_> {
    /// `v`, of type `ty`, as text.
    pub(crate) fn show(&mut self, v: &Value, ty: &Type) -> String {
        match ty {
            Type::Scalar(s) => show_scalar(v, *s),
            Type::Struct(id) => {
                let fields = self
                    .prog
                    .get_struct(*id)
                    .map(|s| s.fields.clone())
                    .unwrap_or_default();
                let parts: Vec<String> = fields
                    .iter()
                    .enumerate()
                    .map(|(i, (name, t))| {
                        let part = item(v, i);
                        format!("{name} = {}", self.show(&part, t))
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Type::CArray(elem, n) => {
                let parts: Vec<String> = picks(*n as usize)
                    .into_iter()
                    .map(|p| match p {
                        Some(i) => self.show(&item(v, i), elem),
                        None => "...".to_string(),
                    })
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Type::Index(_) | Type::Extent(_) => tuple(&v.dims()),
            Type::TiledIndex(shape) => {
                let g = v.dims();
                let d = shape.dims();
                let local: Vec<i64> = g
                    .iter()
                    .zip(d)
                    .map(|(g, &t)| g.rem_euclid(i64::from(t)))
                    .collect();
                let tile: Vec<i64> = g
                    .iter()
                    .zip(d)
                    .map(|(g, &t)| g.div_euclid(i64::from(t)))
                    .collect();
                format!(
                    "global {}, tile {}, local {}",
                    tuple(&g),
                    tuple(&tile),
                    tuple(&local)
                )
            }
            Type::TiledExtent(shape) => self.tile_map(&v.dims(), *shape),
            Type::Array(elem, _) | Type::ArrayView { elem, .. } => match v {
                Value::View(view) => self.show_view(&Rc::clone(view), elem),
                _ => "(no data)".to_string(),
            },
            Type::Vector(elem) => {
                let data: Vec<Value> = match v {
                    Value::Vector(s) => s.to_values(),
                    _ => Vec::new(),
                };
                let parts: Vec<String> = picks(data.len())
                    .into_iter()
                    .map(|p| match p {
                        Some(i) => self.show(&data[i], elem),
                        None => "...".to_string(),
                    })
                    .collect();
                format!("[{}] (size {})", parts.join(", "), data.len())
            }
            other => tessera_ir::display(other, &self.prog.structs),
        }
    }

    fn show_view(&mut self, view: &View, elem: &Type) -> String {
        let ext = view.extent.clone();
        let cell = |m: &mut Self, k: usize| -> String {
            let p = view.place_at(view.nth(k));
            let saved = std::mem::replace(&mut m.checker.on, false);
            let v = m
                .read(&p, tessera_diagnostics::Span::default())
                .unwrap_or(Value::Uninit);
            m.checker.on = saved;
            m.show(&v, elem)
        };
        if ext.len() == 2 {
            let (rows, cols) = (ext[0].max(0) as usize, ext[1].max(0) as usize);
            let mut lines = Vec::new();
            for r in picks(rows) {
                let line: Vec<String> = picks(cols)
                    .into_iter()
                    .map(|c| match (r, c) {
                        (Some(r), Some(c)) => cell(self, r * cols + c),
                        (None, _) | (_, None) => "...".to_string(),
                    })
                    .collect();
                lines.push(line);
            }
            return format!("extent {}\n{}", tuple(&ext), grid(&lines));
        }
        let parts: Vec<String> = picks(view.size())
            .into_iter()
            .map(|p| match p {
                Some(k) => cell(self, k),
                None => "...".to_string(),
            })
            .collect();
        format!("[{}] extent {}", parts.join(", "), tuple(&ext))
    }

    /// Which tile each cell of `ext` belongs to.
    fn tile_map(&self, ext: &[i64], shape: TileShape) -> String {
        let d: Vec<i64> = shape.dims().iter().map(|&t| i64::from(t)).collect();
        let head = format!(
            "extent {} in tiles of {}",
            tuple(ext),
            d.iter().map(i64::to_string).collect::<Vec<_>>().join("x")
        );
        let label = |idx: &[i64]| -> String {
            let t: Vec<String> = idx
                .iter()
                .zip(&d)
                .map(|(i, t)| (i / t).to_string())
                .collect();
            t.join(",")
        };
        match ext {
            [n] => {
                let cells: Vec<String> = picks(*n as usize)
                    .into_iter()
                    .map(|p| p.map_or("...".into(), |i| label(&[i as i64])))
                    .collect();
                format!("{head}\n{}", grid(&[cells]))
            }
            [rows, cols] => {
                let lines: Vec<Vec<String>> = picks(*rows as usize)
                    .into_iter()
                    .map(|r| {
                        picks(*cols as usize)
                            .into_iter()
                            .map(|c| match (r, c) {
                                (Some(r), Some(c)) => label(&[r as i64, c as i64]),
                                _ => "...".to_string(),
                            })
                            .collect()
                    })
                    .collect();
                format!("{head}\n{}", grid(&lines))
            }
            _ => head,
        }
    }
}

fn item(v: &Value, i: usize) -> Value {
    v.part(i).unwrap_or(Value::Uninit)
}

fn show_scalar(v: &Value, s: Scalar) -> String {
    if matches!(v, Value::Uninit) {
        return "(uninitialised)".to_string();
    }
    let mut out = Vec::new();
    let mut f = StreamFormat::default();
    match s {
        Scalar::Bool => return if v.truth() { "true" } else { "false" }.to_string(),
        Scalar::Char | Scalar::UChar => {
            let c = v.int() as u8;
            return if c.is_ascii_graphic() || c == b' ' {
                format!("'{}'", char::from(c))
            } else {
                format!("{}", v.int())
            };
        }
        Scalar::Short => f.write_scalar(ScalarValue::Short(v.int() as i16), &mut out),
        Scalar::UShort => f.write_scalar(ScalarValue::UShort(v.int() as u16), &mut out),
        Scalar::Int | Scalar::WChar => f.write_scalar(ScalarValue::Int(v.int() as i32), &mut out),
        Scalar::UInt => f.write_scalar(ScalarValue::UInt(v.int() as u32), &mut out),
        Scalar::Long => f.write_scalar(ScalarValue::Long(v.int()), &mut out),
        Scalar::ULong => f.write_scalar(ScalarValue::ULong(v.int() as u64), &mut out),
        Scalar::Float => f.write_scalar(ScalarValue::Float(arith::as_f64(v) as f32), &mut out),
        Scalar::Double => f.write_scalar(ScalarValue::Double(arith::as_f64(v)), &mut out),
    }
    // Numbers are ASCII.
    String::from_utf8_lossy(&out).into_owned()
}
