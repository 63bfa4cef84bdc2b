// The user table: when each user signed up, was last active, and was nudged.
export interface User {
  id: string
  signedUpAt: number
  lastActiveAt: number
  nudgedAt?: number
}

export class Users {
  private readonly rows = new Map<string, User>()

  signUp(id: string, now = Date.now()): User {
    const user: User = { id, signedUpAt: now, lastActiveAt: now }
    this.rows.set(id, user)
    return user
  }

  touch(id: string, now = Date.now()): void {
    const user = this.rows.get(id)
    if (user) user.lastActiveAt = now
  }

  get(id: string): User | undefined {
    return this.rows.get(id)
  }
}
