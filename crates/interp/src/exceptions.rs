//! `throw` and `try`/`catch` on the host.
//!
//! A thrown exception travels up as a run-time error of code R0022 (so every
//! `?` on the way unwinds, popping frames as calls do for any error), with
//! the exception object itself kept beside it in the machine. A `try` whose
//! handler matches the object's type takes it back and runs the handler;
//! if none does, the error reaches the top and stops the program, as an
//! uncaught exception terminates a C++ program.

use crate::machine::{Flow, Machine, Res, Stop};
use crate::value::{Value, get_path};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{Block, Expr, Handler, Type};

/// The exceptions of a run.
#[derive(Debug, Default)]
pub(crate) struct Exceptions {
    /// The exception on its way up, with its type.
    in_flight: Option<(Value, Type)>,
    /// The exceptions being handled (innermost last), for `throw;`.
    handling: Vec<(Value, Type)>,
}

/// The classes of <stdexcept> the library throws by name.
const STD_EXCEPTIONS: [&str; 3] = ["out_of_range", "invalid_argument", "length_error"];

/// A `std::out_of_range` the library throws (`at` with an index past the
/// end), with libstdc++'s `what()`: it travels up as an uncaught exception
/// until a handler takes it.
pub(crate) fn out_of_range(m: &Machine<'_>, span: Span, what: String) -> Stop {
    std_exception(
        m,
        span,
        "out_of_range",
        what,
        "thrown here".to_string(),
        "check the index against `size()` first, or catch `std::out_of_range`".to_string(),
    )
}

/// An exception of `<stdexcept>`'s class `std::{class}` (one of
/// `STD_EXCEPTIONS`) that the library throws with `what()` being `what`:
/// a handler for it takes the object its constructor makes from the
/// message; uncaught, the run ends with R0022 as for a `throw`.
pub(crate) fn std_exception(
    m: &Machine<'_>,
    span: Span,
    class: &'static str,
    what: String,
    label: String,
    help: String,
) -> Stop {
    m.error(
        codes::R0022,
        span,
        format!("an exception of type `std::{class}` was thrown and not caught"),
    )
    .with_label(label)
    .with_note(format!("what():  {what}"))
    .with_note(format!("C++ calls `std::terminate` for an exception no handler catches: g++ prints `terminate called after throwing an instance of 'std::{class}'` and `what()`, and aborts"))
    .with_help(help)
    .with_exception(tessera_runtime::LibraryException {
        class,
        what,
        code: 0,
    })
    .into()
}

impl Machine<'_> {
    /// `throw value`, or `throw` to rethrow the exception being handled.
    pub(crate) fn throw(&mut self, value: Option<&Expr>, span: Span) -> Res<Value> {
        let thrown = match value {
            Some(e) => {
                let v = self.eval(e)?;
                let v = self.copy_value(v, &e.ty, e.span)?;
                (v, e.ty.clone())
            }
            None => match self.exceptions.handling.last() {
                Some(current) => current.clone(),
                None => {
                    return Err(self
                        .error(
                            codes::R0023,
                            span,
                            "`throw;` with no exception being handled",
                        )
                        .with_label("nothing to rethrow")
                        .with_note("C++ calls `std::terminate` here")
                        .with_help("rethrow only inside a `catch` block")
                        .into());
                }
            },
        };
        let shown = tessera_ir::display(&thrown.1, &self.prog.structs);
        self.exceptions.in_flight = Some(thrown);
        Err(self
            .error(
                codes::R0022,
                span,
                format!("an exception of type `{shown}` was thrown and not caught"),
            )
            .with_label("thrown here")
            .with_note("C++ calls `std::terminate` for an exception no handler catches")
            .with_help(format!(
                "catch it: `try {{ ... }} catch (const {shown}& e) {{ ... }}`"
            ))
            .into())
    }

    /// `try { body } catch ...`.
    pub(crate) fn exec_try(&mut self, body: &Block, handlers: &[Handler]) -> Res<Flow> {
        let mut stop = match self.exec_block(body) {
            Ok(flow) => return Ok(flow),
            Err(stop) if stop.code == codes::R0022 || stop.exception.is_some() => stop,
            // A library operation given an argument it cannot take: C++ AMP
            // throws `runtime_exception` for these on the host.
            Err(stop) if stop.code == codes::R0007 && !self.in_kernel => stop,
            Err(other) => return Err(other),
        };
        if stop.code == codes::R0007 && stop.exception.is_none() {
            let what = stop.message.clone();
            stop.exception = Some(tessera_runtime::LibraryException {
                class: "runtime_exception",
                what,
                code: 0x8007_0057,
            });
        }
        let thrown = match &stop.exception {
            Some(e) => {
                let e = e.clone();
                self.library_exception(&e, stop.span)?
            }
            None => self.exceptions.in_flight.take(),
        };
        let Some((value, ty)) = thrown else {
            return Err(stop);
        };
        for h in handlers {
            let caught = match &h.catches {
                None => Some(None),
                Some((want, local)) => self
                    .catches(&value, &ty, want)
                    .map(|v| local.map(|l| (l, v))),
            };
            let Some(binding) = caught else { continue };
            if let Some((local, v)) = binding {
                let prog = self.prog;
                let by_ref = self
                    .frame_mut()
                    .func
                    .and_then(|f| prog.function(f).locals.get(local.index()))
                    .is_some_and(|l| l.by_ref);
                let want = h
                    .catches
                    .as_ref()
                    .map(|(t, _)| t.clone())
                    .unwrap_or(Type::Void);
                let bound = if by_ref {
                    // A reference to the exception object itself (its base
                    // subobject for a base's handler): virtual calls see
                    // the class thrown.
                    let path = match (&ty, &want) {
                        (Type::Struct(from), Type::Struct(to)) => {
                            self.prog.base_path(*from, *to).unwrap_or_default()
                        }
                        _ => Vec::new(),
                    };
                    let place = crate::value::Place {
                        root: crate::value::Root::Temp(std::rc::Rc::new(std::cell::RefCell::new(
                            value.clone(),
                        ))),
                        path: path.into_iter().collect(),
                    };
                    Value::Ref(std::rc::Rc::new(place))
                } else {
                    self.as_complete_object(v, &want)
                };
                self.set_local(local, bound);
            }
            self.exceptions.handling.push((value, ty));
            let r = self.exec_block(&h.body);
            self.exceptions.handling.pop();
            return r;
        }
        if stop.exception.is_none() {
            self.exceptions.in_flight = Some((value, ty));
        }
        Err(stop)
    }

    /// The object of a library exception, of the program's class for it
    /// (`concurrency::invalid_compute_domain`, made by the checker when the
    /// program names it, with `runtime_exception` and `std::exception` as
    /// its bases); `catch (...)` takes it even when there is none.
    fn library_exception(
        &mut self,
        e: &tessera_runtime::LibraryException,
        span: Span,
    ) -> Res<Option<(Value, Type)>> {
        let find = |name: &str| {
            self.prog
                .structs
                .iter()
                .position(|s| s.name == name)
                .map(|i| tessera_ir::StructId(i as u32))
        };
        // `std::out_of_range` and the other classes of <stdexcept>: made by
        // their constructor from a message.
        if STD_EXCEPTIONS.contains(&e.class) {
            let class = format!("std::{}", e.class);
            let ctor = format!("{class}::{class}");
            let made = find(&class).and_then(|id| {
                let f = self.prog.functions.iter().position(|f| {
                    f.name == ctor
                        && f.params == 1
                        && matches!(&f.locals[0].ty, Type::Ptr { elem, .. } if **elem == Type::Scalar(tessera_ir::Scalar::Char))
                })?;
                Some((tessera_ir::FuncId(f as u32), id))
            });
            return match made {
                Some((f, id)) => {
                    let v =
                        self.call(f, vec![Machine::string_value_of(e.what.as_bytes())], span)?;
                    Ok(Some((v, Type::Struct(id))))
                }
                None => Ok(Some((Value::Void, Type::Void))),
            };
        }
        // The dynamic classes are set once the object is complete.
        let root = Value::Agg(std::rc::Rc::new(vec![
            Value::Int(0),
            Machine::string_value_of(e.what.as_bytes()),
        ]));
        let base = Value::Agg(std::rc::Rc::new(vec![root, Value::Int(e.code)]));
        let (v, ty) = match find(&format!("concurrency::{}", e.class)) {
            Some(id) if e.class != "runtime_exception" => {
                (Value::Agg(std::rc::Rc::new(vec![base])), Type::Struct(id))
            }
            Some(id) => (base, Type::Struct(id)),
            None => match find("concurrency::runtime_exception") {
                Some(id) => (base, Type::Struct(id)),
                None => (Value::Void, Type::Void),
            },
        };
        Ok(Some((self.as_complete_object(v, &ty), ty)))
    }

    /// What `what()` says of the exception no handler caught, when it is a
    /// `std::exception`.
    pub(crate) fn uncaught_what(&mut self, span: Span) -> Option<String> {
        let (value, Type::Struct(class)) = self.exceptions.in_flight.clone()? else {
            return None;
        };
        let prog = self.prog;
        let root = prog
            .structs
            .iter()
            .position(|s| s.name == "std::exception")?;
        let root = tessera_ir::StructId(root as u32);
        let what = prog
            .dynamic
            .get(&root)?
            .overriders
            .keys()
            .copied()
            .find(|f| prog.function(*f).name == "std::exception::what")?;
        prog.dynamic_base_path(class, root)?;
        let chosen = prog.final_overrider(class, what);
        let Type::Struct(owner) = prog.function(chosen).locals.first()?.ty else {
            return None;
        };
        let place = crate::value::Place {
            root: crate::value::Root::Temp(std::rc::Rc::new(std::cell::RefCell::new(value))),
            path: prog.dynamic_base_path(class, owner)?.into_iter().collect(),
        };
        let text = self
            .call(chosen, vec![Value::Ref(std::rc::Rc::new(place))], span)
            .ok()?;
        let bytes = self.c_string(&text, span).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The object a handler for `want` receives for an exception `value` of
    /// type `ty`: the object itself for the same type, its base subobject
    /// for a base class; `None` when the handler does not match.
    fn catches(&self, value: &Value, ty: &Type, want: &Type) -> Option<Value> {
        if ty == want {
            return Some(value.clone());
        }
        let (Type::Struct(from), Type::Struct(to)) = (ty, want) else {
            return None;
        };
        let path = self.prog.base_path(*from, *to)?;
        get_path(value, &path)
    }
}
