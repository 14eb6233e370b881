import FingerlockCLI
import FingerlockTestSupport
import SafeFiles
import Testing

@Suite(.timed) struct ProcessHardeningTests {
    @Test func theProcessIsNoLongerDumpable() {
        ProcessHardening.apply()
        #expect(!ProcessHardening.isDumpable)
    }
}
