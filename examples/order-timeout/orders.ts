// The shop's order table. In a real application this is your database; here, enough of one to run the example.
export type OrderStatus = 'awaiting-payment' | 'paid' | 'closed'

export interface Order {
  id: string
  status: OrderStatus
  closedAt?: number
}

export class Orders {
  private readonly rows = new Map<string, Order>()

  create(id: string): Order {
    const order: Order = { id, status: 'awaiting-payment' }
    this.rows.set(id, order)
    return order
  }

  get(id: string): Order | undefined {
    return this.rows.get(id)
  }

  /** Conditional update, as a database would do it: only from the expected status. */
  transition(id: string, from: OrderStatus, to: OrderStatus): boolean {
    const order = this.rows.get(id)
    if (!order || order.status !== from) return false
    order.status = to
    if (to === 'closed') order.closedAt = Date.now()
    return true
  }
}
