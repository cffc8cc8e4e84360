//! `concurrency::accelerator` and `accelerator_view` as values.
//!
//! Tessera has the two accelerators C++ AMP shows on a machine with one
//! device: the default one (the CPU engine that runs every kernel) and the
//! CPU accelerator, which holds arrays but runs no kernel. An accelerator
//! value is which of the two it is; a view value carries its identity, so
//! that views made by `create_view()` differ from each other and from the
//! default view while copies of one view compare equal.

use crate::machine::{Machine, Res};
use crate::value::{Accel, DeviceValue, StorageKind, Value, ViewData};
use tessera_diagnostics::{Span, codes};
use tessera_ir::{DeviceText, Expr, Intrinsic, Type, device};

/// The `HRESULT` C++ AMP gives the exceptions of a bad argument
/// (`E_INVALIDARG`), as a 64-bit `long`.
pub(crate) const E_INVALIDARG: i64 = 0x8007_0057;

/// The `HRESULT` of C++ AMP's exceptions for an operation the state of an
/// object forbids (`E_FAIL`), as a 64-bit `long`.
pub(crate) const E_FAIL: i64 = 0x8000_4005;

/// A `runtime_exception` with `what` as its message.
pub(crate) fn runtime_exception(what: impl Into<String>) -> tessera_runtime::LibraryException {
    tessera_runtime::LibraryException {
        class: "runtime_exception",
        what: what.into(),
        code: E_INVALIDARG,
    }
}

/// The device value `v` holds; a value never set (a default-constructed
/// member or element) is the default accelerator, or its default view.
pub(crate) fn device_value(v: &Value, ty: &Type) -> DeviceValue {
    match v {
        Value::Device(d) => *d,
        _ if *ty == Type::AcceleratorView => Accel::Default.default_view(),
        _ => DeviceValue::Accelerator(Accel::Default),
    }
}

impl Machine<'_> {
    /// The accelerator or view `e` evaluates to.
    fn eval_device(&mut self, e: &Expr) -> Res<DeviceValue> {
        let v = self.eval(e)?;
        Ok(device_value(&v, &e.ty))
    }

    /// The device intrinsics: `accelerator` and `accelerator_view`
    /// values, what they answer, and the views arrays were made on.
    pub(crate) fn device_op(&mut self, op: &Intrinsic, args: &[Expr], e: &Expr) -> Res<Value> {
        let span = e.span;
        let d = |v: DeviceValue| Ok(Value::Device(v));
        match op {
            Intrinsic::Device => d(if e.ty == Type::AcceleratorView {
                self.default_accel.default_view()
            } else {
                DeviceValue::Accelerator(self.default_accel)
            }),
            Intrinsic::DeviceOpen => {
                let v = self.eval(&args[0])?;
                match self.accel_at(&v) {
                    Some(a) => d(DeviceValue::Accelerator(a)),
                    None => Err(self.no_device(&v, args[0].span)),
                }
            }
            Intrinsic::DeviceSetDefault => {
                // C++ AMP's rule: the default can be chosen (again) until an
                // operation used it without naming a view.
                let v = self.eval(&args[0])?;
                let Some(a) = self.accel_at(&v) else {
                    return Ok(Value::Bool(false));
                };
                if self.default_fixed {
                    return Ok(Value::Bool(false));
                }
                self.default_accel = a;
                Ok(Value::Bool(true))
            }
            Intrinsic::DeviceAll => {
                let all = vec![
                    Value::Device(DeviceValue::Accelerator(Accel::Default)),
                    Value::Device(DeviceValue::Accelerator(Accel::Cpu)),
                ];
                let storage =
                    self.storage_of(all, &Type::Accelerator, StorageKind::Vector, span)?;
                Ok(Value::Vector(storage))
            }
            Intrinsic::DeviceDefaultView => {
                let acc = self.eval_device(&args[0])?;
                d(acc.accel().default_view())
            }
            Intrinsic::DeviceCreateView => {
                let acc = self.eval_device(&args[0])?;
                let mode = match args.get(1) {
                    Some(m) => self.eval(m)?.int() as i32,
                    None => device::QUEUING_AUTOMATIC as i32,
                };
                let id = self.next_view;
                self.next_view = self.next_view.wrapping_add(1);
                d(DeviceValue::View {
                    id,
                    accel: acc.accel(),
                    mode,
                })
            }
            Intrinsic::DeviceViewAccelerator => {
                let view = self.eval_device(&args[0])?;
                d(DeviceValue::Accelerator(view.accel()))
            }
            Intrinsic::DeviceQueuingMode => {
                let view = self.eval_device(&args[0])?;
                Ok(Value::Int(match view {
                    DeviceValue::View { mode, .. } => i64::from(mode),
                    DeviceValue::Accelerator(_) => device::QUEUING_AUTOMATIC,
                }))
            }
            Intrinsic::DeviceText(which) => {
                let acc = self.eval_device(&args[0])?.accel();
                let text = match which {
                    DeviceText::Description => acc.description(),
                    DeviceText::Path => acc.path(),
                };
                Ok(Value::Str(std::rc::Rc::new(text.as_bytes().to_vec())))
            }
            Intrinsic::DeviceEq => {
                let a = self.eval_device(&args[0])?;
                let b = self.eval_device(&args[1])?;
                let same = match (a, b) {
                    (DeviceValue::View { id: x, .. }, DeviceValue::View { id: y, .. }) => x == y,
                    (x, y) => x.accel() == y.accel(),
                };
                Ok(Value::Bool(same))
            }
            Intrinsic::DeviceLaunchOn => {
                let view = self.eval_device(&args[0])?;
                self.check_launch_on(view.accel(), args[0].span)?;
                self.launch_on = Some(view.accel());
                Ok(Value::Void)
            }
            Intrinsic::ArrayDeviceView { associated } => {
                let v = self.eval(&args[0])?;
                let (own, assoc) = match &v {
                    Value::View(view) => match &view.data {
                        ViewData::Storage(s) => s.placement.get(),
                        _ => (Accel::Default.default_view(), Accel::Default.default_view()),
                    },
                    _ => (Accel::Default.default_view(), Accel::Default.default_view()),
                };
                d(if *associated { assoc } else { own })
            }
            // Host memory (a vector, `new`, a variable) is the CPU
            // accelerator's; device memory is where its array was made.
            Intrinsic::ViewSourceView => {
                let v = self.eval(&args[0])?;
                if let Value::View(view) = &v
                    && let ViewData::Storage(s) = &view.data
                    && s.sourceless.get()
                {
                    return Err(self.amp_refusal(
                        span,
                        "the source of an `array_view` made without a data source".into(),
                        "this view has no data source",
                        "C++ AMP throws a `runtime_exception` here",
                        "Cannot query source accelerator_view for an array_view without a data source.",
                    ));
                }
                let source = match &v {
                    Value::View(view) => match &view.data {
                        ViewData::Storage(s) if s.kind == StorageKind::Device => {
                            s.placement.get().0
                        }
                        _ => Accel::Cpu.default_view(),
                    },
                    _ => Accel::Cpu.default_view(),
                };
                d(source)
            }
            _ => Ok(Value::Void),
        }
    }

    /// A launch on `accel`, or over arrays on it: C++ AMP throws a
    /// `runtime_exception` for the CPU accelerator, which runs no kernel.
    pub(crate) fn check_launch_on(&self, accel: Accel, span: Span) -> Res<()> {
        if accel != Accel::Cpu {
            return Ok(());
        }
        Err(self
            .error(
                codes::R0007,
                span,
                "`parallel_for_each` on the CPU accelerator, which runs no kernel",
            )
            .with_label("a view of `accelerator(accelerator::cpu_accelerator)`")
            .with_note(format!(
                "C++ AMP throws a `runtime_exception` here: {}",
                device::CPU_LAUNCH
            ))
            .with_help("launch on the default accelerator's view, and keep the CPU accelerator's arrays for copies")
            .with_exception(runtime_exception(device::CPU_LAUNCH))
            .into())
    }

    /// A host access to an element of an `array`: C++ AMP throws a
    /// `runtime_exception` when the array was made with
    /// `access_type_none`, whose data the CPU may not touch.
    pub(crate) fn check_cpu_access(&self, view: &crate::value::View, span: Span) -> Res<()> {
        let ViewData::Storage(s) = &view.data else {
            return Ok(());
        };
        if s.kind != StorageKind::Device || s.cpu_access.get() != device::ACCESS_NONE {
            return Ok(());
        }
        // C++ AMP's message, and its `HRESULT` for it (`E_FAIL`).
        let what = tessera_runtime::LibraryException {
            class: "runtime_exception",
            what: "The array is not accessible on CPU.".into(),
            code: E_FAIL,
        };
        Err(self
            .error(codes::R0007, span, "a host access to an array the CPU may not access")
            .with_label("made with `access_type_none`")
            .with_note("C++ AMP throws a `runtime_exception` here")
            .with_help("copy the array out (`copy(a, v.begin())`), or make it with `access_type_read_write`")
            .with_exception(what)
            .into())
    }

    /// The accelerator a device path names: `accelerator::default_accelerator`
    /// the default one (whichever it is), each accelerator its own path.
    fn accel_at(&self, path: &Value) -> Option<Accel> {
        let bytes: &[u8] = match path {
            Value::Str(s) => s,
            _ => &[],
        };
        if bytes == device::DEFAULT.as_bytes() {
            Some(self.default_accel)
        } else if bytes == device::PATH.as_bytes() {
            Some(Accel::Default)
        } else if bytes == device::CPU_PATH.as_bytes() {
            Some(Accel::Cpu)
        } else {
            None
        }
    }

    /// `accelerator(path)` of a path no accelerator has.
    fn no_device(&self, path: &Value, span: Span) -> crate::machine::Stop {
        let bytes: &[u8] = match path {
            Value::Str(s) => s,
            _ => &[],
        };
        let shown = String::from_utf8_lossy(bytes);
        self.error(
            codes::R0007,
            span,
            format!("no accelerator has the device path `{shown}`"),
        )
        .with_label("no such device")
        .with_note(format!(
            "Tessera's accelerators are the default one (`accelerator::default_accelerator`, path `{}`) and the CPU accelerator (`accelerator::cpu_accelerator`); C++ AMP throws a `runtime_exception` here",
            device::PATH
        ))
        .into()
    }
}
