/// A C pointer that may travel between threads but is only dereferenced on the libfprint thread.
///
/// `@unchecked Sendable` invariant: the pointee is touched only by jobs of ``LibfprintThread``;
/// other threads merely carry the address (to hand it back to that thread).
struct ThreadBound<Pointer>: @unchecked Sendable {
    let pointer: Pointer
    init(_ pointer: Pointer) { self.pointer = pointer }
}
