// A bar's width, set through the CSSOM (element.style), never as a style attribute. The page's CSP has no
// 'unsafe-inline' for styles, so a style attribute written into the markup is refused: lit's styleMap writes one on its
// first render, which left every "due jobs" bar at full width (and a CSP violation per bar). Setting a property of
// element.style is not markup, and the CSP allows it.
import { noChange } from 'lit-html'
import { Directive, type ElementPart, PartType, directive, type PartInfo } from 'lit-html/directive.js'

class CssWidth extends Directive {
  constructor(part: PartInfo) {
    super(part)
    if (part.type !== PartType.ELEMENT) throw new Error('cssWidth goes in an element tag, not in an attribute or text')
  }

  render(_percent: number) {
    return noChange
  }

  override update(part: ElementPart, [percent]: [number]) {
    ;(part.element as HTMLElement).style.width = `${percent}%`
    return noChange
  }
}

/** `<span ${cssWidth(42)}>`: the element's width, 42 % of its container's. */
export const cssWidth = directive(CssWidth)
