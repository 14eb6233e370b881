import AuthCore
import Fingerprint

/// The tries loop of an unlock by touch, written once for both custodies: shows the scan prompt
/// (with the way to the passcode), runs one touch at a time, tells retry hints and "No match. Try
/// again.", and ends as ``TouchTries`` decides. What one touch is (this process's reader, or
/// fingerlockd) is the custody's closure; the rules are AuthCore's.
struct TouchSession {
    let interaction: any AuthInteraction

    /// What one touch came to: the verdict, and on a match what the custody got with it (the
    /// finger, the key fingerlockd released).
    enum Touched<Unlocked: Sendable>: Sendable {
        case matched(Unlocked)
        case other(TouchVerdict)
    }

    /// Touches until one matches or ``TouchTries`` ends the unlock.
    /// - Parameters:
    ///   - scanType: how the reader takes a finger (the prompt says "Swipe" for a swipe sensor).
    ///   - offerPasscode: the prompt offers Enter for the passcode, and leaving the scan is that
    ///     choice (false for `verify`, where leaving is a cancel).
    ///   - touch: one touch.
    func run<Unlocked: Sendable>(
        tries: Int, scanType: ScanType = .press, offerPasscode: Bool,
        touch: @escaping @Sendable () async throws -> Touched<Unlocked>
    ) async throws -> Unlocked {
        var rule = TouchTries(tries: tries)
        let verb = scanType == .swipe ? "Swipe your finger on" : "Touch"
        let prompt = "\(verb) the fingerprint reader" + (offerPasscode ? " (or press Enter to type your passcode)" : "")
        while true {
            let outcome: ScanOutcome<Touched<Unlocked>>
            do {
                outcome = try await interaction.scan(prompt: prompt, touch)
            } catch {
                let failure = AuthError.from(error)
                // A reader that reads the terminal itself (the interactive simulated one) reports
                // Enter as its own fallback: the same as leaving the scan at the prompt.
                if failure.code == .userFallback { throw AuthError.scanLeft(typed: "", offerPasscode: offerPasscode) }
                throw failure
            }
            let verdict: TouchVerdict
            switch outcome {
            case .passcodeRequested(let typed):
                throw AuthError.scanLeft(typed: typed, offerPasscode: offerPasscode)
            case .scanned(.matched(let unlocked)):
                return unlocked
            case .scanned(.other(let other)):
                verdict = other
            }
            switch rule.next(after: verdict) {
            case .unlocked:
                // A match always comes as `.matched`, with what it unlocked.
                throw AuthError(.dataError, "A touch matched without unlocking.")
            case .scanAgain(let notice):
                interaction.notify(notice)
            case .fail(.printsLost(let sentence)):
                throw AuthError(.biometryNotAvailable, sentence, unavailability: .printNotStored)
            case .fail(let failure):
                throw AuthError(.authenticationFailed, failure.message)
            }
        }
    }
}
