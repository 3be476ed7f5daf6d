// The game's table and everything only it draws (the board, the action bar, the players, the log, the
// end screen) load after the start screen and the lobby: the waiting room fetches them ahead, so the table
// appears at once when the game starts; a page opened straight at a running game fetches them then.
import { lazyScreen } from './lazy_screen.js';

export const GameScreen = lazyScreen(() => import('./screens/game.js'), 'GameScreen');
