public import FoundationEssentials

extension SimulatedReader {
    /// A `FINGERLOCK_SIMULATED_*` variable that cannot be used, with the sentence that says why.
    public struct EnvironmentError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// The simulated reader as the environment scripts it: `FINGERLOCK_SIMULATED_STAGES` (1 to 20,
    /// default 5) and `FINGERLOCK_SIMULATED_TOUCHES` (see ``SimulatedScript``); without a script the
    /// touches come from `unscripted`. Nil when the script says the reader is absent.
    ///
    /// The environment is the one of the process that owns the reader: the CLI's in user mode, the
    /// service's own (set by whoever starts it) in system mode — never anything a client sends.
    public static func fromEnvironment(
        _ environment: [String: String], unscripted: () -> any SimulatedTouchSource,
        now: @escaping @Sendable () -> Date
    ) throws -> SimulatedReader? {
        var stages = 5
        if let text = environment["FINGERLOCK_SIMULATED_STAGES"] {
            guard let value = Int(text), (1...20).contains(value) else {
                throw EnvironmentError(
                    description: "FINGERLOCK_SIMULATED_STAGES must be a whole number from 1 to 20, not '\(text)'.")
            }
            stages = value
        }
        let source: any SimulatedTouchSource
        if let scriptText = environment["FINGERLOCK_SIMULATED_TOUCHES"] {
            let script = try SimulatedScript(parsing: scriptText)
            if script.readerAbsent { return nil }
            source = ScriptedTouchSource(script.touches)
        } else {
            source = unscripted()
        }
        return SimulatedReader(touches: source, enrollStages: stages, now: now)
    }
}
