// Package evaluate is geometry's evaluation half: it measures a geometry
// profile on what calibration never saw, for `isagi eval` (teh,
// refusals, cog, ogd) and the tables of docs/geometry.md. Nothing the
// product runs — calibration, the live gauge, the memory — depends on it,
// so the geometry package holds only what the product runs.
//
// It reads the model through geometry.Reader, the readings calibration
// makes, so that a held-out figure and a calibration figure come from the
// same code.
package evaluate
