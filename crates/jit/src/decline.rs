//! Why a kernel is left to the interpreter.

use tessera_ir::ExprKind;

/// Why a kernel is left to the interpreter.
#[derive(Clone, Debug)]
pub struct Unsupported(pub String);

pub(crate) type R<T> = Result<T, Unsupported>;

pub(crate) fn unsupported<T>(what: impl Into<String>) -> R<T> {
    Err(Unsupported(what.into()))
}

/// What an expression is, for the reason a kernel is declined.
pub(crate) fn kind_name(k: &ExprKind) -> String {
    match k {
        ExprKind::Intrinsic { op, .. } => format!("the library operation {op:?}"),
        ExprKind::Conditional { .. } => "a conditional".into(),
        ExprKind::Comma { .. } => "a comma expression".into(),
        ExprKind::Call { .. } => "a call".into(),
        ExprKind::Convert(_) => "a conversion".into(),
        ExprKind::Global(_) => "a global".into(),
        ExprKind::IncDec { .. } => "a postfix `++`/`--`".into(),
        other => {
            let text = format!("{other:?}");
            let name: String = text.chars().take_while(|c| c.is_alphanumeric()).collect();
            format!("an expression ({name})")
        }
    }
}
