// The component tests render a browser where someone signed in: the mark a sign-in leaves
// (api/session.ts), so that the session is asked of the mocked server as in the real application.
localStorage.setItem("vigie.signed-in", "1");
