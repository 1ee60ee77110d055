import ForgeInject
import Testing

// The README's ForgeInject example, kept compiling and checked here.

protocol Clock: Sendable { func now() -> Int }
final class SystemClock: Clock { func now() -> Int { 42 } }

struct CoreModule: ForgeRegisterProtocol {
  func registerDependencies(in container: ForgeContainerProtocol) {
    container.register(with: .singleton) { _ in SystemClock() as Clock }
  }
}

@Injectable
final class Stopwatch {
  let clock: Clock  // init(clock: Clock = <resolved from ForgeContainer.shared>)
}

@Suite("README")
struct ReadmeExampleTests {
  @Test("the ForgeInject example works as the README says")
  func forgeInjectExample() async {
    await #expect(processExitsWith: .success) {
      let container = ForgeContainer()
      CoreModule().registerDependencies(in: container)
      ForgeContainer.shared = container  // once, at launch

      let stopwatch = Stopwatch()  // production: resolved
      let tested = Stopwatch(clock: SystemClock())  // tests: injected
      precondition(stopwatch.clock.now() == 42 && tested.clock.now() == 42)
      precondition(stopwatch.clock as AnyObject === (try! container.resolve() as Clock) as AnyObject)
    }
  }
}
