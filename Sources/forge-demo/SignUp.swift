import SwiftPod

// The sign-up flow, wired with SwiftPod providers: no registration step, and
// a custom scope that ends with the flow.

/// Instances that live while a user is signing up.
final class SignUpScope: ProviderScope {
  let children: [any ProviderScope] = [SignUpStepScope()]
}

/// Instances that live for one step of the sign-up flow.
final class SignUpStepScope: ProviderScope {
  let children: [any ProviderScope] = []
}

/// The answers collected over the flow.
final class SignUpDraft: Sendable {
  private let fields = Locked<[String: String]>([:])
  func set(_ field: String, _ value: String) { fields.withLock { $0[field] = value } }
  var summary: String {
    fields.current.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
  }
}

/// Checks one field; stateless, so a new one each time.
struct EmailValidator: Sendable {
  func isValid(_ email: String) -> Bool { email.contains("@") && email.contains(".") }
}

/// Creates accounts; one for the app's lifetime.
final class AccountAPI: Sendable {
  private let created = Locked<[String]>([])
  func createAccount(_ summary: String) -> Int {
    created.withLock { accounts in
      accounts.append(summary)
      return accounts.count
    }
  }
}

let accountAPIProvider = Provider("accountAPI") { _ in AccountAPI() }
let emailValidatorProvider = Provider("emailValidator", scope: AlwaysCreateNewScope()) { _ in EmailValidator() }
let signUpDraftProvider = Provider("signUpDraft", scope: SignUpScope()) { _ in SignUpDraft() }

/// The flow's controller: built from providers through the pod it is given.
struct SignUpFlow {
  let pod: SwiftPod

  func enter(email: String, name: String) -> Bool {
    guard pod.resolve(emailValidatorProvider).isValid(email) else { return false }
    let draft = pod.resolve(signUpDraftProvider)
    draft.set("email", email)
    draft.set("name", name)
    return true
  }

  func finish() -> Int {
    let id = pod.resolve(accountAPIProvider).createAccount(pod.resolve(signUpDraftProvider).summary)
    pod.clearCachedInstances(forScope: SignUpScope())  // the next sign-up starts clean
    return id
  }
}
