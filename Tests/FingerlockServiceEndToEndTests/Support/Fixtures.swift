import Foundation

/// The directory of the Python clients the tests run (the `varlink` package's, a bare one run as
/// login users, and the floods): `Fixtures/` beside `Support/`.
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").path
