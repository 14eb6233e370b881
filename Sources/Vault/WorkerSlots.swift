/// One value per worker of a parallel loop (the note scan's, a listing's rendering). @unchecked
/// Sendable: worker `w` touches only slot `w`, and the thread that started the workers reads or
/// takes a slot only after waiting for them (a `DispatchGroup`, or `concurrentPerform` returning),
/// which orders every worker's writes before its reads; a scan's workers run one batch at a time.
package final class WorkerSlots<Value>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<Value>
    private let initial: Value

    package init(count: Int, initial: Value) {
        self.initial = initial
        slots = .allocate(capacity: count)
        slots.initialize(repeating: initial)
    }

    package func set(_ index: Int, _ value: Value) { slots[index] = value }

    package func update(_ index: Int, _ change: (inout Value) -> Void) { change(&slots[index]) }

    /// The slot's value; the slot goes back to its initial value.
    package func take(_ index: Int) -> Value {
        var value = initial
        swap(&value, &slots[index])
        return value
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }
}
