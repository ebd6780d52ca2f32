//! The program model shared by every generator module: element types, extents (the
//! program's fixed sizes), arrays and how an element or a whole array is spelled in C.

/// Element type of an array or scalar. Values always stay small integers (|v| < 2^50, and
/// array elements |v| <= 999), so `double` arithmetic is exact and compares bit-exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    Int,
    Long,
    Double,
}

impl Elem {
    pub fn c(self) -> &'static str {
        match self {
            Elem::Int => "int",
            Elem::Long => "long",
            Elem::Double => "double",
        }
    }

    /// Largest magnitude an intermediate value of this type may reach (no signed overflow;
    /// doubles stay exact integers).
    pub fn limit(self) -> i64 {
        match self {
            Elem::Int => 1 << 30,
            Elem::Long | Elem::Double => 1 << 50,
        }
    }

    /// A literal of this type (its C type is exactly `self`).
    pub fn lit(self, v: i64) -> String {
        let s = match self {
            Elem::Int => format!("{v}"),
            Elem::Long => format!("{v}L"),
            Elem::Double => format!("{v}.0"),
        };
        if v < 0 {
            format!("({s})")
        } else {
            s
        }
    }
}

/// An extent: every array dimension and every loop ranges over one of these.
/// `I` is always the gang dimension (dimension 0 of every shared array); `P` is the size of
/// private arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ext {
    I,
    J,
    K,
    P,
}

impl Ext {
    /// The compile-time macro (`#define NI 37`).
    pub fn mac(self) -> &'static str {
        match self {
            Ext::I => "NI",
            Ext::J => "NJ",
            Ext::K => "NK",
            Ext::P => "NP",
        }
    }

    /// The run-time copy (`int ni = NI;`), used in some loop bounds.
    pub fn var(self) -> &'static str {
        match self {
            Ext::I => "ni",
            Ext::J => "nj",
            Ext::K => "nk",
            Ext::P => "np",
        }
    }

    /// Loop-variable letter.
    pub fn letter(self) -> &'static str {
        match self {
            Ext::I => "i",
            Ext::J => "j",
            Ext::K => "k",
            Ext::P => "p",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    pub i: i64,
    pub j: i64,
    pub k: i64,
    pub p: i64,
}

impl Sizes {
    pub fn of(&self, e: Ext) -> i64 {
        match e {
            Ext::I => self.i,
            Ext::J => self.j,
            Ext::K => self.k,
            Ext::P => self.p,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// `T *h = malloc(...)`, flat, indexed `h[(i * NK + k) * NJ + j]`; data clauses use
    /// `h[0:NI * NJ]`.
    Heap,
    /// `T a[NI][NJ]` in `main`; data clauses use `a` or `a[0:NI]`.
    Local,
}

#[derive(Clone, Debug)]
pub struct Array {
    pub name: String,
    pub elem: Elem,
    pub storage: Storage,
    pub dims: Vec<Ext>,
}

/// `s` as an operand: bare if it is a name or a number, else parenthesised.
pub fn par(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        s.to_string()
    } else {
        format!("({s})")
    }
}

impl Array {
    pub fn len(&self, sizes: &Sizes) -> i64 {
        self.dims.iter().map(|&d| sizes.of(d)).product()
    }

    /// Element count as C text: `NI * NJ`.
    pub fn len_text(&self) -> String {
        self.dims
            .iter()
            .map(|d| d.mac())
            .collect::<Vec<_>>()
            .join(" * ")
    }

    /// The element at `idx` (one index per dimension).
    pub fn access(&self, idx: &[String]) -> String {
        assert_eq!(idx.len(), self.dims.len(), "index arity for {}", self.name);
        match self.storage {
            Storage::Local => {
                let mut s = self.name.clone();
                for i in idx {
                    s.push_str(&format!("[{i}]"));
                }
                s
            }
            Storage::Heap => {
                let mut flat = idx[0].clone();
                for (d, i) in idx.iter().enumerate().skip(1) {
                    let lhs = if d == 1 {
                        par(&flat)
                    } else {
                        format!("({flat})")
                    };
                    flat = format!("{lhs} * {} + {}", self.dims[d].mac(), par(i));
                }
                format!("{}[{}]", self.name, flat)
            }
        }
    }

    /// The whole array in a data clause or update.
    pub fn section(&self, short_local: bool) -> String {
        match self.storage {
            Storage::Heap => format!("{}[0:{}]", self.name, self.len_text()),
            Storage::Local if short_local => self.name.clone(),
            Storage::Local => format!("{}[0:{}]", self.name, self.dims[0].mac()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn access_spelling() {
        let dims = vec![Ext::I, Ext::K, Ext::J];
        let h = Array {
            name: "h0".into(),
            elem: Elem::Long,
            storage: Storage::Heap,
            dims: dims.clone(),
        };
        let idx = ["i".to_string(), "k".to_string(), "NJ - 1 - j".to_string()];
        assert_eq!(h.access(&idx), "h0[(i * NK + k) * NJ + (NJ - 1 - j)]");
        assert_eq!(h.section(true), "h0[0:NI * NK * NJ]");
        let l = Array {
            name: "a1".into(),
            elem: Elem::Int,
            storage: Storage::Local,
            dims,
        };
        assert_eq!(l.access(&idx), "a1[i][k][NJ - 1 - j]");
        assert_eq!(l.section(false), "a1[0:NI]");
        assert_eq!(Elem::Long.lit(-3), "(-3L)");
        assert_eq!(Elem::Double.lit(4), "4.0");
    }
}
