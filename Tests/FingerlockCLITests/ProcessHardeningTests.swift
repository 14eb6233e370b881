import FingerlockCLI
import SafeFiles
import FingerlockTestSupport
import Testing

@Suite(.timed) struct ProcessHardeningTests {
    @Test func theProcessIsNoLongerDumpable() {
        ProcessHardening.apply()
        #expect(!ProcessHardening.isDumpable)
    }
}
