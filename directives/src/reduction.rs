//! Reduction operators and element types, shared by the driver (which writes them into the
//! contract) and the pass (which reads them back).
//!
//! The element type travels as a number the front end computes: the driver writes a C11
//! `_Generic` selection over the clause item (`ReductionType::generic_selection`), because
//! LLVM IR does not say whether an `i32` is `int` or `unsigned` (which `max` and `min` need)
//! and the pass only sees a pointer for a variable that lives in device memory.

/// A reduction operator (OpenACC 3.3 §2.9.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    Add,
    Mul,
    Max,
    Min,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
}

impl ReductionOp {
    pub const ALL: [ReductionOp; 9] = [
        ReductionOp::Add,
        ReductionOp::Mul,
        ReductionOp::Max,
        ReductionOp::Min,
        ReductionOp::BitAnd,
        ReductionOp::BitOr,
        ReductionOp::BitXor,
        ReductionOp::And,
        ReductionOp::Or,
    ];

    /// The operator as written in the clause (`+`, `max`, `&&`, ...).
    pub fn symbol(self) -> &'static str {
        match self {
            ReductionOp::Add => "+",
            ReductionOp::Mul => "*",
            ReductionOp::Max => "max",
            ReductionOp::Min => "min",
            ReductionOp::BitAnd => "&",
            ReductionOp::BitOr => "|",
            ReductionOp::BitXor => "^",
            ReductionOp::And => "&&",
            ReductionOp::Or => "||",
        }
    }

    /// A name usable in a symbol (`add`, `land`, ...): the device helpers' names.
    pub fn mnemonic(self) -> &'static str {
        match self {
            ReductionOp::Add => "add",
            ReductionOp::Mul => "mul",
            ReductionOp::Max => "max",
            ReductionOp::Min => "min",
            ReductionOp::BitAnd => "and",
            ReductionOp::BitOr => "or",
            ReductionOp::BitXor => "xor",
            ReductionOp::And => "land",
            ReductionOp::Or => "lor",
        }
    }

    pub fn from_symbol(s: &str) -> Option<ReductionOp> {
        Self::ALL.into_iter().find(|o| o.symbol() == s.trim())
    }
}

/// The element type of a reduction variable, with the code the contract carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionType {
    I8 = 1,
    U8 = 2,
    I16 = 3,
    U16 = 4,
    I32 = 5,
    U32 = 6,
    I64 = 7,
    U64 = 8,
    F32 = 9,
    F64 = 10,
    /// `float _Complex`
    C32 = 11,
    /// `double _Complex`
    C64 = 12,
    /// `_Bool`
    Bool = 13,
}

/// The C types of the `_Generic` selection, with their codes (`char` is signed on every
/// target accc supports: x86-64 and NVPTX).
const C_TYPES: &[(&str, ReductionType)] = &[
    ("char", ReductionType::I8),
    ("signed char", ReductionType::I8),
    ("unsigned char", ReductionType::U8),
    ("short", ReductionType::I16),
    ("unsigned short", ReductionType::U16),
    ("int", ReductionType::I32),
    ("unsigned int", ReductionType::U32),
    ("long", ReductionType::I64),
    ("unsigned long", ReductionType::U64),
    ("long long", ReductionType::I64),
    ("unsigned long long", ReductionType::U64),
    ("float", ReductionType::F32),
    ("double", ReductionType::F64),
    ("float _Complex", ReductionType::C32),
    ("double _Complex", ReductionType::C64),
    ("_Bool", ReductionType::Bool),
];

impl ReductionType {
    pub const ALL: [ReductionType; 13] = [
        ReductionType::I8,
        ReductionType::U8,
        ReductionType::I16,
        ReductionType::U16,
        ReductionType::I32,
        ReductionType::U32,
        ReductionType::I64,
        ReductionType::U64,
        ReductionType::F32,
        ReductionType::F64,
        ReductionType::C32,
        ReductionType::C64,
        ReductionType::Bool,
    ];

    pub fn code(self) -> i64 {
        self as i64
    }

    /// The type with contract code `code`; 0 (the selection's `default`) and unknown codes
    /// are None: a type accc cannot reduce (a struct, a pointer, `long double`).
    pub fn from_code(code: i64) -> Option<ReductionType> {
        Self::ALL.into_iter().find(|t| t.code() == code)
    }

    /// A C expression (`long long`) giving the code of the element type of `item` (an
    /// lvalue: a scalar, a whole one-dimensional array, or an array section's first element),
    /// 0 for any other. It selects on `&(item)`: `T *` for a scalar, `T (*)[]` (compatible
    /// with every `T (*)[N]`) for an array, so neither promotion nor array decay hides the type.
    pub fn generic_selection(item: &str) -> String {
        let arms: Vec<String> = C_TYPES.iter().map(|(c, t)| format!("{c} *: {0}, {c} (*)[]: {0}", t.code())).collect();
        format!("(long long)_Generic(&({item}), {}, default: 0)", arms.join(", "))
    }

    /// The device helpers' name for the type (`i32`, `u64`, `f64`, `c32`, `bool`).
    pub fn mnemonic(self) -> &'static str {
        match self {
            ReductionType::I8 => "i8",
            ReductionType::U8 => "u8",
            ReductionType::I16 => "i16",
            ReductionType::U16 => "u16",
            ReductionType::I32 => "i32",
            ReductionType::U32 => "u32",
            ReductionType::I64 => "i64",
            ReductionType::U64 => "u64",
            ReductionType::F32 => "f32",
            ReductionType::F64 => "f64",
            ReductionType::C32 => "c32",
            ReductionType::C64 => "c64",
            ReductionType::Bool => "bool",
        }
    }

    /// Size in bytes.
    pub fn size(self) -> u64 {
        match self {
            ReductionType::I8 | ReductionType::U8 | ReductionType::Bool => 1,
            ReductionType::I16 | ReductionType::U16 => 2,
            ReductionType::I32 | ReductionType::U32 | ReductionType::F32 => 4,
            ReductionType::I64 | ReductionType::U64 | ReductionType::F64 | ReductionType::C32 => 8,
            ReductionType::C64 => 16,
        }
    }

    /// The C type name, for messages.
    pub fn c_name(self) -> &'static str {
        C_TYPES.iter().find(|(_, t)| *t == self).map(|(c, _)| *c).expect("every type has a C name")
    }

    pub fn is_complex(self) -> bool {
        matches!(self, ReductionType::C32 | ReductionType::C64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, ReductionType::F32 | ReductionType::F64)
    }

    /// Whether OpenACC defines `op` on this type (C's rules: no bitwise operators on
    /// floating types, only `+` and `*` on complex ones). Clang's validation already rejects
    /// the others in C source; hand-written contract IR is checked here.
    pub fn allows(self, op: ReductionOp) -> bool {
        use ReductionOp::*;
        match op {
            Add | Mul => true,
            Max | Min | And | Or => !self.is_complex(),
            BitAnd | BitOr | BitXor => !self.is_complex() && !self.is_float(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for t in ReductionType::ALL {
            assert_eq!(ReductionType::from_code(t.code()), Some(t));
        }
        assert_eq!(ReductionType::from_code(0), None);
        for o in ReductionOp::ALL {
            assert_eq!(ReductionOp::from_symbol(o.symbol()), Some(o));
        }
        assert_eq!(ReductionOp::from_symbol("-"), None);
    }

    #[test]
    fn generic_selection_names_every_type() {
        let s = ReductionType::generic_selection("x");
        assert!(s.starts_with("(long long)_Generic(&(x), char *: 1, char (*)[]: 1, "), "{s}");
        assert!(s.contains("unsigned long long *: 8") && s.contains("double _Complex (*)[]: 12") && s.ends_with("default: 0)"), "{s}");
    }

    #[test]
    fn operators_allowed_by_type() {
        assert!(!ReductionType::F64.allows(ReductionOp::BitAnd));
        assert!(ReductionType::F64.allows(ReductionOp::And));
        assert!(ReductionType::C32.allows(ReductionOp::Mul) && !ReductionType::C32.allows(ReductionOp::Max));
        assert!(ReductionType::U16.allows(ReductionOp::BitXor));
    }
}
