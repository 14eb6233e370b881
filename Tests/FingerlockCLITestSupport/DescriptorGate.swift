import Synchronization

/// Keeps in-process runs that read a passcode from a descriptor apart from every other in-process run.
///
/// `--passcode-fd N` accepts only a descriptor without close-on-exec (one the process inherited), and
/// the CLI, before it starts a helper program (`pass`, an editor, the clipboard's clearer), marks every
/// descriptor of its process close-on-exec so none leaks into it. In the binary that process is the
/// command's own; in process it is the test runner, where another test's run could mark the pipe an
/// in-process run just made for its passcode, which then reads as "not open" (exit 64). So a run with
/// a passcode descriptor runs alone (exclusive), the others side by side (shared), first come first
/// served. One gate for the process: the descriptor flags it guards are the process's.
final class DescriptorGate: Sendable {
    static let process = DescriptorGate()

    private struct State {
        var shared = 0
        var exclusive = false
        var waiting: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

        func admits(exclusive: Bool) -> Bool { exclusive ? !self.exclusive && shared == 0 : !self.exclusive }

        mutating func take(exclusive: Bool) {
            if exclusive { self.exclusive = true } else { shared += 1 }
        }
    }

    private let state = Mutex(State())

    func enter(exclusive: Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                // Behind anyone already waiting, so a run with a descriptor is never starved.
                guard state.waiting.isEmpty, state.admits(exclusive: exclusive) else {
                    state.waiting.append((exclusive, continuation))
                    return false
                }
                state.take(exclusive: exclusive)
                return true
            }
            if now { continuation.resume() }
        }
    }

    func leave(exclusive: Bool) {
        let admitted = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if exclusive { state.exclusive = false } else { state.shared -= 1 }
            var admitted: [CheckedContinuation<Void, Never>] = []
            while let next = state.waiting.first, state.admits(exclusive: next.exclusive) {
                state.waiting.removeFirst()
                state.take(exclusive: next.exclusive)
                admitted.append(next.continuation)
            }
            return admitted
        }
        for continuation in admitted { continuation.resume() }
    }
}
