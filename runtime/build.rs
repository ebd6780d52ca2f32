//! Gives libaccrt.so the soname `libaccrt.so`, so a program linked against it by path
//! (`cc prog.o target/release/libaccrt.so`) records `NEEDED libaccrt.so` rather than the
//! path, and finds it through its rpath/`LD_LIBRARY_PATH` like one linked with `-laccrt`.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libaccrt.so");
    println!("cargo:rerun-if-changed=build.rs");
}
