// Moving between the site's pages without a reload (History API): the
// router (main.js) draws the page the address names; links and pagers ask
// for another address here.

let draw = null;

// onNavigate is how the router learns of a new address.
export function onNavigate(fn) { draw = fn; }

// go shows another page of the site, as a link would.
export function go(url) {
  history.pushState(null, "", url);
  window.scrollTo(0, 0);
  draw(true);
}
