import type { Faker } from '@faker-js/faker';
import { faker as englishFaker } from '@faker-js/faker/locale/en';
import { Rng } from './random.js';

/**
 * The synthesizer's one random stream and the Faker instance drawing from it. `synthesize` reseeds both at the start
 * of each call and runs to the end without yielding, so calls never interleave on them even when many are in flight.
 */
export const rng = new Rng();

// The Faker class is taken from the English instance: importing it from the package root loads every locale (~300 ms).
const FakerClass = englishFaker.constructor as typeof Faker;
export const faker: Faker = new FakerClass({ locale: englishFaker.rawDefinitions, randomizer: rng });

/**
 * Dates are drawn around this fixed day, never around the wall clock, so bodies do not change from one day to the next.
 */
export const REFERENCE_DATE = new Date('2025-06-01T12:00:00Z');
faker.setDefaultRefDate(REFERENCE_DATE);

export function reseed(seed: number): void {
  rng.seed(seed);
}
