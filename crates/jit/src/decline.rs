//! Why a kernel (or host loop) is left to the interpreter: one variant per
//! construct or limit the JIT does not cover, each with the message
//! `tessera dump clif` prints and the agreement tests tally.

use std::borrow::Cow;
use std::fmt;
use tessera_ir::ExprKind;

/// Why a kernel is left to the interpreter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decline {
    /// Native code generation is not available on this machine.
    NoNativeCode,
    /// Pointers: the interpreter's checked pointers (allocation, bounds,
    /// lifetime) have no compiled form; nor have the host-only integer
    /// types narrower than `int` (other than `char`).
    Pointer,
    /// A pointer use compiled code does not follow (what it is), or a
    /// host-only narrow integer type.
    PointerUse(&'static str),
    /// A pointer local made from the address of a local kept in a
    /// variable (the plans would not see the writes through it).
    PointerToVariable,
    /// Unions in host code: the interpreter keeps which member is active.
    Union,
    /// A captured union, or a view of unions: the launch's data carries no
    /// active member.
    UnionCapture,
    /// A union whose active-member tag compiled code cannot find there (a
    /// frame slot, a value from a conditional) or too many to track.
    UnionTags,
    /// A union member named by a reference, or in an access neither read
    /// nor written (the interpreter checks the member at each use).
    UnionMemberAccess,
    /// A virtual call: the interpreter finds the object's dynamic class.
    VirtualCall,
    /// The frame size of a kernel did not settle after its second lowering.
    FrameLayoutUnsettled,
    /// A bitwise operator on floats.
    BitwiseOperatorOnFloats,
    /// `~` on a bool.
    ComplementOnBool,
    /// A conversion of this kind.
    ConversionKind,
    /// A call of a function with a barrier.
    CallOfFunctionWithBarrier,
    /// A call of an undefined function.
    CallUndefinedFunction,
    /// Calls nested too deeply.
    CallsNestedTooDeeply,
    /// An argument of this type.
    ArgumentType,
    /// An argument of this kind.
    ArgumentKind,
    /// A function returning a reference.
    FunctionReturningReference,
    /// A function returning this type.
    FunctionReturningType,
    /// A non-scalar value where a scalar was expected.
    NonScalarWhereScalarExpected,
    /// A kernel without a joined function (several tiles per call: see
    /// `emit::join`): it runs one tile per call.
    JoinedTiles,
    /// A value where an index was expected.
    ValueWhereIndexExpected,
    /// A value where a view was expected.
    ValueWhereViewExpected,
    /// A kernel too large after inlining its calls.
    KernelTooLargeAfterInliningCalls,
    /// A call of a function compiled out of line in code run in lanes.
    OutlinedCallInLanes,
    /// A function that asks to be declined (a test of the fallback: see
    /// `emit::DECLINED_ON_REQUEST`).
    OnRequest,
    /// A host loop that surely does less work than compiling it takes
    /// (see `plan::work`).
    LittleWork,
    /// A kernel whose variables and blocks, after inlining, would make
    /// Cranelift's SSA tables too large (see `emit::MAX_VARIABLE_BLOCKS`).
    KernelTooManyVariablesAndBlocks,
    /// An unknown capture.
    UnknownCapture,
    /// A global variable in a kernel.
    GlobalVariableInKernel,
    /// A conditional of mixed kinds.
    ConditionalMixedKinds,
    /// A compound assignment to a non-scalar.
    CompoundAssignmentNonScalar,
    /// `++` on a non-scalar.
    IncrementOnNonScalar,
    /// `++` on a bool.
    IncrementOnBool,
    /// A braced list as a value.
    BracedListAsValue,
    /// A launch inside a kernel.
    LaunchInKernel,
    /// A string in a kernel.
    StringInKernel,
    /// `try`/`catch` or `throw` (host code only): the interpreter unwinds.
    Exceptions,
    /// An index of another rank.
    IndexAnotherRank,
    /// Index arithmetic with this operand.
    IndexArithmeticOperand,
    /// A tiled index outside a tiled kernel.
    TiledIndexOutsideTiledKernel,
    /// A tiled index other than the kernel's.
    TiledIndexNotKernels,
    /// A projection of a rank-1 view.
    ProjectionOfRank1View,
    /// A section of another rank.
    SectionAnotherRank,
    /// This integer math function.
    IntegerMathFunction,
    /// An atomic on a variable.
    AtomicOnVariable,
    /// An atomic of this kind.
    AtomicKind,
    /// Not a kernel.
    NotAKernel,
    /// A kernel parameter of an unexpected type.
    KernelParameterUnexpectedType,
    /// A view of elements without a plain layout.
    ViewElementsWithoutPlainLayout,
    /// A kernel without a body.
    KernelWithoutBody,
    /// A `tile_static` variable of this type.
    TileStaticVariableType,
    /// An unknown local.
    UnknownLocal,
    /// A reference to an object of this type (named as the program
    /// writes it).
    ReferenceLocal(String),
    /// A vector of non-scalars.
    VectorNonScalars,
    /// A host variable of this type (named as the program writes it).
    HostVariableType(String),
    /// A host variable of this kind.
    HostVariableKind,
    /// A local of a host loop, other than a scalar, that code the
    /// interpreter runs when it leaves the loop reads.
    HostExitLocal,
    /// A reference declared between barriers.
    ReferenceDeclaredBetweenBarriers,
    /// A local of this type declared between barriers.
    LocalTypeDeclaredBetweenBarriers,
    /// A work-item loop outside a tiled kernel.
    WorkItemLoopOutsideTiledKernel,
    /// A shared counter that is not a scalar.
    SharedCounterNotScalar,
    /// An aggregate of this type.
    AggregateType,
    /// Private arrays too large for the stack: a host statement's past
    /// 1 MiB, a kernel's past 256 MiB.
    PrivateArraysTooLargeForStack,
    /// The address of a variable.
    AddressVariable,
    /// An array element of this type.
    ArrayElementType,
    /// An unknown struct.
    UnknownStruct,
    /// An initialiser with too many fields.
    InitialiserTooManyFields,
    /// A field of this type.
    FieldType,
    /// A braced initialiser of this type.
    BracedInitialiserType,
    /// A reference inside an aggregate.
    ReferenceInsideAggregate,
    /// Storing a value of this kind.
    StoringValueKind,
    /// A conditional of this type.
    ConditionalType,
    /// Returning a value of this type.
    ReturningValueType,
    /// A view or tiled index as a place.
    ViewOrTiledIndexAsPlace,
    /// A local used before its declaration.
    LocalUsedBeforeDeclaration,
    /// A captured value as a place.
    CapturedValueAsPlace,
    /// An element of a non-array.
    ElementOfNonArray,
    /// A computed component of an index as a place.
    ComputedIndexComponentAsPlace,
    /// A component past the rank.
    ComponentPastRank,
    /// A component of this index as a place.
    IndexComponentAsPlace,
    /// A place.
    OtherPlace,
    /// An aggregate outside memory.
    AggregateOutsideMemory,
    /// An aggregate value of this kind.
    AggregateValueKind,
    /// Reading memory of this type.
    ReadingMemoryType,
    /// An assignment of this kind.
    AssignmentKind,
    /// `return` in a loop with a barrier.
    ReturnInLoopWithBarrier,
    /// `break` outside a loop.
    BreakOutsideLoop,
    /// `continue` in a switch.
    ContinueInSwitch,
    /// `goto` or a label (host code).
    Goto,
    /// A barrier inside this kind of statement.
    BarrierInsideStatementKind,
    /// A function with a barrier that returns a value.
    FunctionBarrierReturnsValue,
    /// `return` in a function with a barrier.
    ReturnInFunctionWithBarrier,
    /// Calls with barriers nested too deeply.
    CallsBarriersNestedTooDeeply,
    /// `tile_static` memory past 64 KB.
    TileStaticMemoryPast64Kb,
    /// A reference in a function with a barrier.
    ReferenceInFunctionWithBarrier,
    /// A reference argument other than a variable.
    ReferenceArgumentNotVariable,
    /// A reference argument to a variable of a work-item loop.
    ReferenceArgumentToWorkItemLoopVariable,
    /// A view argument other than a captured view.
    ViewArgumentNotCapturedView,
    /// A view argument of this kind.
    ViewArgumentKind,
    /// A loop of another kind.
    LoopAnotherKind,
    /// `break` out of a loop with a barrier.
    BreakOutOfLoopWithBarrier,
    /// `continue` outside a loop.
    ContinueOutsideLoop,
    /// `continue` in a loop with a barrier.
    ContinueInLoopWithBarrier,
    /// `return` here.
    ReturnHere,
    /// `return` before a barrier.
    ReturnBeforeBarrier,
    /// `return` between barriers.
    ReturnBetweenBarriers,
    /// A barrier inside a work-item loop.
    BarrierInsideWorkItemLoop,
    /// An initialised `tile_static` variable.
    InitialisedTileStaticVariable,
    /// A `tile_static` variable in a called function.
    TileStaticVariableCalledFunction,
    /// A reference without a target.
    ReferenceWithoutTarget,
    /// A nested initialiser of an index.
    NestedInitialiserIndex,
    /// A view local without a value.
    ViewLocalWithoutValue,
    /// A view local of this kind.
    ViewLocalKind,
    /// A reference to nothing.
    ReferenceToNothing,
    /// A value of the named type where a scalar was expected.
    TypeWhereScalarExpected(String),
    /// A captured value of the named type.
    CapturedType(String),
    /// A local of the named type.
    LocalType(String),
    /// The named kind of expression as a place.
    ExprAsPlace(String),
    /// The named library operation, not compiled.
    LibraryOperation(String),
    /// Cranelift failed to compile the function (its message).
    CodeGeneration(String),
    /// The reason met while lowering a region in lanes: the kernel is
    /// lowered once more without lanes (their copies of a statement may be
    /// what passed a budget).
    InLanes(Box<Decline>),
}

impl Decline {
    /// The message naming what is not covered.
    pub fn message(&self) -> Cow<'static, str> {
        match self {
            Self::NoNativeCode => "native code generation is not available on this machine".into(),
            Self::Pointer => {
                "a pointer or a host-only integer type (checked pointers and `short`, `unsigned short`, `unsigned char` run in the interpreter)".into()
            }
            Self::PointerUse(what) => format!(
                "{what} (compiled code follows a pointer into an object it can name, as the interpreter checks it, and binds any other to the element it points to)"
            )
            .into(),
            Self::PointerToVariable => {
                "a pointer local to a scalar variable (only arguments and memory are pointed to)"
                    .into()
            }
            Self::Union => "a union (the interpreter tracks its active member)".into(),
            Self::UnionCapture => {
                "a captured union or a view of unions (the launch's data carries no active member)"
                    .into()
            }
            Self::UnionTags => "a union whose active member is not tracked here".into(),
            Self::OnRequest => "a function declined on request (a test build)".into(),
            Self::LittleWork => {
                "a host loop doing less work than compiling it would take".into()
            }
            Self::OutlinedCallInLanes => {
                "a call of a function compiled out of line, in lanes".into()
            }
            Self::UnionMemberAccess => {
                "a reference into a union member (checked at each use by the interpreter)".into()
            }
            Self::VirtualCall => "a virtual call (the interpreter finds the overrider)".into(),
            Self::FrameLayoutUnsettled => "the frame layout did not settle".into(),
            Self::BitwiseOperatorOnFloats => "a bitwise operator on floats".into(),
            Self::ComplementOnBool => "`~` on a bool".into(),
            Self::ConversionKind => "a conversion of this kind".into(),
            Self::CallOfFunctionWithBarrier => "a call of a function with a barrier".into(),
            Self::CallUndefinedFunction => "a call of an undefined function".into(),
            Self::CallsNestedTooDeeply => "calls nested too deeply".into(),
            Self::ArgumentType => "an argument of this type".into(),
            Self::ArgumentKind => "an argument of this kind".into(),
            Self::FunctionReturningReference => "a function returning a reference".into(),
            Self::FunctionReturningType => "a function returning this type".into(),
            Self::NonScalarWhereScalarExpected => {
                "a non-scalar value where a scalar was expected".into()
            }
            Self::JoinedTiles => "several tiles per call (the kernel runs one)".into(),
            Self::ValueWhereIndexExpected => "a value where an index was expected".into(),
            Self::ValueWhereViewExpected => "a value where a view was expected".into(),
            Self::KernelTooLargeAfterInliningCalls => {
                "a kernel too large after inlining its calls".into()
            }
            Self::KernelTooManyVariablesAndBlocks => {
                "a kernel with too many variables times blocks after inlining its calls (the compiler's tables would grow with their product)".into()
            }
            Self::UnknownCapture => "an unknown capture".into(),
            Self::GlobalVariableInKernel => "a global variable in a kernel".into(),
            Self::ConditionalMixedKinds => "a conditional of mixed kinds".into(),
            Self::CompoundAssignmentNonScalar => "a compound assignment to a non-scalar".into(),
            Self::IncrementOnNonScalar => "`++` on a non-scalar".into(),
            Self::IncrementOnBool => "`++` on a bool".into(),
            Self::BracedListAsValue => "a braced list as a value".into(),
            Self::LaunchInKernel => "a launch inside a kernel".into(),
            Self::StringInKernel => "a string in a kernel".into(),
            Self::Exceptions => "exceptions (`try`, `throw`)".into(),
            Self::IndexAnotherRank => "an index of another rank".into(),
            Self::IndexArithmeticOperand => "index arithmetic with this operand".into(),
            Self::TiledIndexOutsideTiledKernel => "a tiled index outside a tiled kernel".into(),
            Self::TiledIndexNotKernels => "a tiled index other than the kernel's".into(),
            Self::ProjectionOfRank1View => "a projection of a rank-1 view".into(),
            Self::SectionAnotherRank => "a section of another rank".into(),
            Self::IntegerMathFunction => "this integer math function".into(),
            Self::AtomicOnVariable => "an atomic on a variable".into(),
            Self::AtomicKind => "an atomic of this kind".into(),
            Self::NotAKernel => "not a kernel".into(),
            Self::KernelParameterUnexpectedType => {
                "a kernel parameter of an unexpected type".into()
            }
            Self::ViewElementsWithoutPlainLayout => {
                "a view of elements without a plain layout".into()
            }
            Self::KernelWithoutBody => "a kernel without a body".into(),
            Self::TileStaticVariableType => "a `tile_static` variable of this type".into(),
            Self::UnknownLocal => "an unknown local".into(),
            Self::ReferenceLocal(what) => format!("a reference to a `{what}`").into(),
            Self::VectorNonScalars => "a vector of non-scalars".into(),
            Self::HostVariableType(what) => format!("a host variable of type `{what}`").into(),
            Self::HostVariableKind => "a host variable of this kind".into(),
            Self::HostExitLocal => "a non-scalar local read where the loop is left".into(),
            Self::ReferenceDeclaredBetweenBarriers => {
                "a reference declared between barriers".into()
            }
            Self::LocalTypeDeclaredBetweenBarriers => {
                "a local of this type declared between barriers".into()
            }
            Self::WorkItemLoopOutsideTiledKernel => {
                "a work-item loop outside a tiled kernel".into()
            }
            Self::SharedCounterNotScalar => "a shared counter that is not a scalar".into(),
            Self::AggregateType => "an aggregate of this type".into(),
            Self::PrivateArraysTooLargeForStack => {
                "private arrays too large for the stack (a host statement's past 1 MiB, a kernel's past 256 MiB)".into()
            }
            Self::AddressVariable => "the address of a variable".into(),
            Self::ArrayElementType => "an array element of this type".into(),
            Self::UnknownStruct => "an unknown struct".into(),
            Self::InitialiserTooManyFields => "an initialiser with too many fields".into(),
            Self::FieldType => "a field of this type".into(),
            Self::BracedInitialiserType => "a braced initialiser of this type".into(),
            Self::ReferenceInsideAggregate => "a reference inside an aggregate".into(),
            Self::StoringValueKind => "storing a value of this kind".into(),
            Self::ConditionalType => "a conditional of this type".into(),
            Self::ReturningValueType => "returning a value of this type".into(),
            Self::ViewOrTiledIndexAsPlace => "a view or tiled index as a place".into(),
            Self::LocalUsedBeforeDeclaration => "a local used before its declaration".into(),
            Self::CapturedValueAsPlace => "a captured value as a place".into(),
            Self::ElementOfNonArray => "an element of a non-array".into(),
            Self::ComputedIndexComponentAsPlace => {
                "a computed component of an index as a place".into()
            }
            Self::ComponentPastRank => "a component past the rank".into(),
            Self::IndexComponentAsPlace => "a component of this index as a place".into(),
            Self::OtherPlace => "a place".into(),
            Self::AggregateOutsideMemory => "an aggregate outside memory".into(),
            Self::AggregateValueKind => "an aggregate value of this kind".into(),
            Self::ReadingMemoryType => "reading memory of this type".into(),
            Self::AssignmentKind => "an assignment of this kind".into(),
            Self::ReturnInLoopWithBarrier => "`return` in a loop with a barrier".into(),
            Self::BreakOutsideLoop => "`break` outside a loop".into(),
            Self::ContinueInSwitch => "`continue` in a switch".into(),
            Self::Goto => "`goto` or a label".into(),
            Self::BarrierInsideStatementKind => "a barrier inside this kind of statement".into(),
            Self::FunctionBarrierReturnsValue => {
                "a function with a barrier that returns a value".into()
            }
            Self::ReturnInFunctionWithBarrier => "`return` in a function with a barrier".into(),
            Self::CallsBarriersNestedTooDeeply => "calls with barriers nested too deeply".into(),
            Self::TileStaticMemoryPast64Kb => "`tile_static` memory past 64 KB".into(),
            Self::ReferenceInFunctionWithBarrier => {
                "a reference in a function with a barrier".into()
            }
            Self::ReferenceArgumentNotVariable => {
                "a reference argument other than a variable".into()
            }
            Self::ReferenceArgumentToWorkItemLoopVariable => {
                "a reference argument to a variable of a work-item loop".into()
            }
            Self::ViewArgumentNotCapturedView => {
                "a view argument other than a captured view".into()
            }
            Self::ViewArgumentKind => "a view argument of this kind".into(),
            Self::LoopAnotherKind => "a loop of another kind".into(),
            Self::BreakOutOfLoopWithBarrier => "`break` out of a loop with a barrier".into(),
            Self::ContinueOutsideLoop => "`continue` outside a loop".into(),
            Self::ContinueInLoopWithBarrier => "`continue` in a loop with a barrier".into(),
            Self::ReturnHere => "`return` here".into(),
            Self::ReturnBeforeBarrier => "`return` before a barrier".into(),
            Self::ReturnBetweenBarriers => "`return` between barriers".into(),
            Self::BarrierInsideWorkItemLoop => "a barrier inside a work-item loop".into(),
            Self::InitialisedTileStaticVariable => "an initialised `tile_static` variable".into(),
            Self::TileStaticVariableCalledFunction => {
                "a `tile_static` variable in a called function".into()
            }
            Self::ReferenceWithoutTarget => "a reference without a target".into(),
            Self::NestedInitialiserIndex => "a nested initialiser of an index".into(),
            Self::ViewLocalWithoutValue => "a view local without a value".into(),
            Self::ViewLocalKind => "a view local of this kind".into(),
            Self::ReferenceToNothing => "a reference to nothing".into(),
            Self::TypeWhereScalarExpected(what) => {
                format!("a value of type `{}` where a scalar was expected", what).into()
            }
            Self::CapturedType(what) => format!("a captured `{}`", what).into(),
            Self::LocalType(what) => format!("a local of type `{}`", what).into(),
            Self::ExprAsPlace(what) => format!("{} as a place", what).into(),
            Self::LibraryOperation(what) => {
                format!("the library operation {} in a kernel", what).into()
            }
            Self::CodeGeneration(what) => format!("code generation failed: {}", what).into(),
            Self::InLanes(inner) => inner.message(),
        }
    }
}

impl fmt::Display for Decline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// The result of lowering: a value, or why the kernel is declined.
pub(crate) type R<T> = Result<T, Decline>;

/// Declines the kernel being lowered.
pub(crate) fn decline<T>(why: Decline) -> R<T> {
    Err(why)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages are what `dump clif` printed before the enum existed,
    /// and what the agreement tests tally: they must not drift.
    #[test]
    fn messages_are_the_reasons_printed() {
        assert_eq!(
            Decline::ReferenceDeclaredBetweenBarriers.to_string(),
            "a reference declared between barriers"
        );
        assert_eq!(
            Decline::ReturnInLoopWithBarrier.to_string(),
            "`return` in a loop with a barrier"
        );
        assert_eq!(
            Decline::ExprAsPlace(kind_name(&ExprKind::Call {
                func: tessera_ir::FuncId(0),
                args: Vec::new()
            }))
            .to_string(),
            "a call as a place"
        );
        assert_eq!(
            Decline::CodeGeneration("bad".into()).to_string(),
            "code generation failed: bad"
        );
    }
}
