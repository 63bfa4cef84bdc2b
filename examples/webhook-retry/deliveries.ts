// The record of each webhook notification: what was tried, when, and how it ended.
export interface Delivery {
  id: string
  url: string
  attempts: { at: number; status: number | string }[]
  state: 'pending' | 'delivered' | 'failed'
}

export class Deliveries {
  private readonly rows = new Map<string, Delivery>()

  create(id: string, url: string): Delivery {
    const d: Delivery = { id, url, attempts: [], state: 'pending' }
    this.rows.set(id, d)
    return d
  }

  get(id: string): Delivery | undefined {
    return this.rows.get(id)
  }
}
