import Auth
import Fingerprint

/// The lines `enroll` prints as it goes. The touch count is the one the reader gives once it is open
/// (some drivers decide it then), progress follows the stages the driver reports, and a reader whose
/// count is a maximum may finish before it: then the user is told so rather than left counting.
struct EnrollProgressText {
    let finger: Finger
    private var info: ReaderInfo?
    private var announced: Int?
    private var lastStage: (completed: Int, total: Int)?

    init(finger: Finger) { self.finger = finger }

    mutating func lines(for update: Enrollment.Update) -> [String] {
        switch update {
        case .starting(let info):
            self.info = info
            return ["Enrolling \(finger) on \(info.name) (\(info.identity))."]
        case .progress(.opened(let stages)):
            announced = stages
            let verb = info?.scanType == .swipe ? "Swipe your finger across" : "Touch"
            if info?.enrollStagesAreMaximum == true {
                return ["\(verb) the sensor until it says done (up to \(stages) times); Ctrl-C cancels."]
            }
            return ["\(verb) the sensor \(stages) times; Ctrl-C cancels."]
        case .progress(.stage(let completed, let total)):
            var lines: [String] = []
            if let previous = lastStage?.total ?? announced, previous != total {
                lines.append("  (the reader now asks for \(total) touches)")
            }
            lastStage = (completed, total)
            lines.append("  stage \(completed)/\(total) \(ProgressBar.render(completed, of: total))")
            return lines
        case .progress(.retry(let reason)):
            return ["  \(reason.hint)"]
        case .progress(.waitingForOtherUser(let request)):
            return [AuthError.readerBusy(with: request, waiting: "this enrollment")]
        case .progress(.enrolled):
            guard let lastStage, lastStage.completed < lastStage.total else { return [] }
            return ["  The reader had enough after \(lastStage.completed) of up to \(lastStage.total) touches."]
        }
    }
}

/// A short text progress bar for enrollment stages.
enum ProgressBar {
    static func render(_ completed: Int, of total: Int) -> String {
        let total = max(total, 1)
        let filled = min(max(completed, 0), total)
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: total - filled) + "]"
    }
}
